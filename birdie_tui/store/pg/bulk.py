"""What moving whole homes in and out of the database needs (`agent.transfer`) beyond the
session store's API: sessions found by owner and creation stamp, ids checked and reserved,
rows written exactly as given."""

from __future__ import annotations

from datetime import date
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from .connect import scalar
from .sessions import _NEXT, PgSessionStore

__all__ = ["PgTransferStore"]


class PgTransferStore(PgSessionStore):
    def find(self, owner: str, created_at: str | None, data: dict[str, Any]) -> str | None:
        """The id of `owner`'s session created at `created_at` (without a stamp: holding
        exactly `data`), if the database has it."""
        def work(conn: psycopg.Connection) -> Any:
            if created_at:
                return conn.execute("SELECT id FROM birdie_sessions WHERE user_id = %s AND "
                                    "created_at = %s LIMIT 1", (owner, created_at)).fetchone()
            return conn.execute("SELECT id FROM birdie_sessions WHERE user_id = %s AND "
                                "meta - 'id' = %s LIMIT 1",
                                (owner, Jsonb({k: v for k, v in data.items() if k != "id"}))
                                ).fetchone()
        row = self._db.run(work)
        return row[0] if row else None

    def id_state(self, session_id: str) -> str:
        """"free", "thread" (only a checkpoint thread has it), or "taken" (a session has it
        or had it: deleted ids stay taken)."""
        def work(conn: psycopg.Connection) -> str:
            if conn.execute("SELECT 1 FROM birdie_sessions WHERE id = %s UNION ALL "
                            "SELECT 1 FROM birdie_deleted_sessions WHERE id = %s",
                            (session_id, session_id)).fetchone():
                return "taken"
            return "thread" if self._taken_elsewhere(conn, session_id) else "free"
        return self._db.run(work)

    def reserve(self, day: str) -> str:
        """A new id of `day`, free everywhere, that no one else will be handed."""
        when = date.fromisoformat(day)

        def work(conn: psycopg.Connection) -> str:
            with conn.transaction():
                while True:
                    sid = f"{day}_{scalar(conn, _NEXT, (when,))}"
                    if not self._taken_elsewhere(conn, sid):
                        return sid
        return self._db.run(work)

    def put(self, data: dict[str, Any], owner: str) -> bool:
        """Write the session `data` (with its id) as it is, owned by `owner`; False when its
        id is a deleted session's."""
        def work(conn: psycopg.Connection) -> bool:
            with conn.transaction():
                return self._insert_with_id(conn, data["id"], owner, data)
        return self._db.run(work)

    def owned(self, owner: str | None) -> list[tuple[str, str, dict[str, Any]]]:
        """(owner, id, meta) of every session (or `owner`'s), oldest first."""
        where, params = ("WHERE user_id = %s", (owner,)) if owner else ("", ())
        return self._db.run(lambda conn: conn.execute(
            f"SELECT user_id, id, meta FROM birdie_sessions {where} ORDER BY day, n",
            params).fetchall())

    def memory_users(self, owner: str | None) -> list[str]:
        where, params = ("WHERE user_id = %s", (owner,)) if owner else ("", ())
        return [r[0] for r in self._db.run(lambda conn: conn.execute(
            f"SELECT DISTINCT user_id FROM birdie_memory {where}", params).fetchall())]
