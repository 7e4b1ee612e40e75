"""What a per-user store in the shared database starts from: the user's name checked, and a
client that migrates the schema when it first connects."""

from __future__ import annotations

from ..paths import validate_user
from .connect import PgClient
from .migrations import migrate

__all__ = ["PgUserRows"]


class PgUserRows:
    """One user's rows of a table family (memory notes, run records); `close()` ends the client."""

    def __init__(self, url: str, user: str) -> None:
        self.url = url
        self.user = validate_user(user)
        self.warnings: list[str] = []
        self._db = PgClient(url, self.user, on_connect=lambda conn: migrate(conn, url))

    def close(self) -> None:
        self._db.close()
