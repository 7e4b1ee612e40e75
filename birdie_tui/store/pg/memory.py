"""`PgMemoryStore`: one user's long-term memory in the shared database, with
`store.memory.MemoryStore`'s API (entries, add, delete). Each user has their own notes; the
order is the order they were added (Birdie injects them oldest first)."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import psycopg

from ..memory import MemoryEntry, note_text, pick
from .user_rows import PgUserRows
from .nul_text import decode

__all__ = ["PgMemoryStore"]


class PgMemoryStore(PgUserRows):
    def entries(self) -> list[MemoryEntry]:
        """The user's notes, oldest first."""
        rows = self._db.run(lambda conn: conn.execute(
            "SELECT id, timestamp, content FROM birdie_memory WHERE user_id = %s ORDER BY seq",
            (self.user,)).fetchall())
        return [MemoryEntry(sid, stamp, decode(content)) for sid, stamp, content in rows]

    def add(self, text: str) -> MemoryEntry:
        """Append a note; blank text raises ValueError."""
        content = note_text(text)
        stamp = datetime.now(timezone.utc).isoformat()

        def work(conn: psycopg.Connection) -> MemoryEntry:
            while True:  # an 8-hex id already taken by this user: draw another
                entry = MemoryEntry(uuid.uuid4().hex[:8], stamp, content)
                if self._insert(conn, entry):
                    return entry

        return self._db.run(work)

    def _insert(self, conn: psycopg.Connection, entry: MemoryEntry) -> bool:
        return conn.execute(
            "INSERT INTO birdie_memory (user_id, id, timestamp, content) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (user_id, id) DO NOTHING RETURNING seq",
            (self.user, entry.id, entry.timestamp, entry.content)).fetchone() is not None

    def insert(self, entry: MemoryEntry) -> bool:
        """Add `entry` as it is (an import); False when the user already has a note with its
        id or the same text."""
        def work(conn: psycopg.Connection) -> bool:
            with conn.transaction():
                if conn.execute("SELECT 1 FROM birdie_memory WHERE user_id = %s AND content = %s",
                                (self.user, entry.content)).fetchone():
                    return False
                return self._insert(conn, entry)
        return self._db.run(work)

    def delete(self, key: str | int) -> MemoryEntry | None:
        """Remove the note with id ``key``, else the ``key``-th (1-based); None if no match."""
        def work(conn: psycopg.Connection) -> MemoryEntry | None:
            with conn.transaction():
                rows = conn.execute(
                    "SELECT seq, id, timestamp, content FROM birdie_memory WHERE user_id = %s "
                    "ORDER BY seq FOR UPDATE", (self.user,)).fetchall()
                found = pick([row[1] for row in rows], key)
                if found is None:
                    return None
                target = rows[found]
                conn.execute("DELETE FROM birdie_memory WHERE seq = %s", (target[0],))
                return MemoryEntry(target[1], target[2], decode(target[3]))
        return self._db.run(work)
