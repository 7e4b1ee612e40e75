"""One turn at a time per session across machines: a PostgreSQL session-level advisory lock,
held on a connection of its own for the whole turn.

The twin of `store.session_lock.TurnLock` (try_acquire never blocks, release, held, holder).
A process that dies takes its connection, and so the lock, with it: a crash never leaves a
session locked. `holder()` names the process holding it, from ``pg_locks`` and the
``application_name`` of its connection (``alice@laptop pid 1234``).

The lock key is the session id itself, packed: (day ordinal << 32) | N, unique per id.
"""

from __future__ import annotations

import contextlib
from datetime import date
from zlib import crc32

import psycopg

from .connect import APP_PREFIX, connect, scalar

__all__ = ["PgTurnLock", "lock_key"]


def lock_key(session_id: str) -> int:
    """The advisory lock key (a positive bigint) of `session_id`."""
    day, _, n = session_id.rpartition("_")
    try:
        return (date.fromisoformat(day).toordinal() << 32) | (int(n) & 0xFFFFFFFF)
    except ValueError:  # not YYYY-MM-DD_N (validated elsewhere): still one key per id
        return (1 << 62) | crc32(session_id.encode())


_HOLDER = """
SELECT a.application_name, l.pid FROM pg_locks AS l
JOIN pg_stat_activity AS a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.classid = %s AND l.objid = %s
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
LIMIT 1"""


class PgTurnLock:
    """One session's turn lock. Not re-entrant; the connection lives while the object waits
    for or holds the lock, and goes with `release`."""

    def __init__(self, url: str, user: str, session_id: str) -> None:
        self.url, self.user, self.session_id = url, user, session_id
        self.key = lock_key(session_id)
        self._conn: psycopg.Connection | None = None
        self._held = False

    @property
    def held(self) -> bool:
        return self._held

    def _connection(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = connect(self.url, self.user)  # DatabaseUnavailable: an OSError
        return self._conn

    def try_acquire(self) -> bool:
        """Take the lock if it is free (never blocks); True when this object holds it."""
        if self._held:
            return True
        try:
            got = scalar(self._connection(), "SELECT pg_try_advisory_lock(%s)", (self.key,))
        except psycopg.OperationalError:
            self._close()
            got = scalar(self._connection(), "SELECT pg_try_advisory_lock(%s)", (self.key,))
        self._held = bool(got)
        return self._held

    def holder(self) -> str | None:
        """Who holds the lock, e.g. ``alice@laptop pid 1234``; None if free or unknown."""
        try:
            conn = self._connection()
            row = conn.execute(_HOLDER, (self.key >> 32, self.key & 0xFFFFFFFF)).fetchone()
        except (psycopg.Error, OSError):
            return None
        if row is None:
            return None
        name, backend = row
        if name and name.startswith(APP_PREFIX):
            return str(name[len(APP_PREFIX):])
        return f"{name or 'a database client'} (backend pid {backend})"

    def release(self) -> None:
        held, self._held = self._held, False
        if held and self._conn is not None:
            # Unlocked before the close: the server ends a closed connection's backend (and
            # its locks) a moment later, and another process asking meanwhile would wait.
            with contextlib.suppress(Exception):
                scalar(self._conn, "SELECT pg_advisory_unlock(%s)", (self.key,))
        self._close()  # a lock left by a failed unlock goes with the connection

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
