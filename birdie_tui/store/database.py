"""Which store holds sessions and memory: the embedded one under BIRDIE_HOME (no URL), or a
shared PostgreSQL database (`store.pg`), chosen by a URL.

The URL comes from ``--database-url``, else ``$BIRDIE_DATABASE_URL``, else settings.json's
``"database_url"`` (read raw: the settings model needs pydantic, too slow for `sessions list`).
No langgraph, no pydantic, no psycopg here: the embedded path imports nothing new.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from birdie_tui.regular_files import read_regular

from .memory import MemoryStore
from .paths import BirdiePaths
from .protocols import MemoryStoreProtocol, SessionStoreProtocol
from .pg.urls import is_postgres_url, mask_url
from .sessions import SessionStore

__all__ = ["DATABASE_ENV", "InvalidDatabaseUrl", "open_memory_store", "open_session_store",
           "resolve_database_url"]

DATABASE_ENV = "BIRDIE_DATABASE_URL"
SETTINGS_KEY = "database_url"


class InvalidDatabaseUrl(ValueError):
    """A database URL that is not postgresql://... (the message is one line, no password)."""


def resolve_database_url(cli_value: str | None, environ: Mapping[str, str] = os.environ,
                         paths: BirdiePaths | None = None) -> str | None:
    """The URL to use, or None for the embedded store: the command line, then the
    environment, then settings.json. An empty value means "none" at its level and below."""
    for value in (cli_value, environ.get(DATABASE_ENV)):
        if value is not None:
            return _checked(value)
    if paths is not None:
        return _checked(_from_settings(paths))
    return None


def _from_settings(paths: BirdiePaths) -> str | None:
    try:
        data: Any = json.loads(read_regular(paths.settings_file))  # a FIFO would block
    except (OSError, ValueError):  # missing or corrupt: settings.py reports (and recovers) it
        return None
    value = data.get(SETTINGS_KEY) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _checked(value: str | None) -> str | None:
    url = (value or "").strip()
    if not url:
        return None
    if not is_postgres_url(url):
        raise InvalidDatabaseUrl(
            f"invalid database URL {mask_url(url)!r}: expected postgresql://USER@HOST:PORT/DB "
            "(or postgres://...)")
    return url


def open_session_store(paths: BirdiePaths, user: str, url: str | None
                       ) -> SessionStoreProtocol:
    """`SessionStore` under BIRDIE_HOME, or `PgSessionStore` on the database at `url`."""
    if not url:
        return SessionStore(paths, user)
    from .pg.sessions import PgSessionStore

    return PgSessionStore(url, user)


def open_memory_store(paths: BirdiePaths, user: str, url: str | None
                      ) -> MemoryStoreProtocol:
    """`MemoryStore` under BIRDIE_HOME, or `PgMemoryStore` on the database at `url`."""
    if not url:
        return MemoryStore(paths, user)
    from .pg.memory import PgMemoryStore

    return PgMemoryStore(url, user)
