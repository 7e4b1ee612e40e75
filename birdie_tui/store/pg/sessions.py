"""`PgSessionStore`: session metadata in PostgreSQL, with `store.sessions.SessionStore`'s API
and semantics, for a team sharing one database.

Each session is a row of ``birdie_sessions``: the very dict `SessionMeta.to_dict` gives (JSONB:
Birdie's keys, grants, token ledger, unknown keys), plus the columns a list shows, so listing
10,000 sessions is one indexed query. Ids are global in the database (the checkpointer's thread
id is the session id), allocated from a per-day counter (``birdie_session_days``) in the same
transaction that inserts the row: never two sessions with one id, on any machine, and a deleted
id is never handed out again (the counter only grows; ``birdie_deleted_sessions`` remembers it).

Lists show every session of the database, newest first; ``user_id`` stays the owner, and every
write records who made it (``last_user``, ``last_host``). `save` merges key by key
(`session_merge`) and `update` applies a change, both under the row's lock (FOR UPDATE).
"""

from __future__ import annotations

import builtins
import contextlib
import socket
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from ..paths import validate_session_id, validate_user
from ..session_merge import merge_session
from ..session_meta import SessionMeta, SessionSummary, _now
from ..session_common import Listed, SessionStoreBase, without_empty
from .connect import PgClient, scalar
from .migrations import migrate
from .nul_text import decode
from .turn_lock import PgTurnLock

__all__ = ["PgSessionStore"]

_NEWEST_FIRST = "ORDER BY day DESC, n DESC"
_SUMMARY = ("SELECT id, user_id, created_at, updated_at, turns, title, input_tokens, "
            "output_tokens, last_user, last_host FROM birdie_sessions ")
_UPSERT = """
INSERT INTO birdie_sessions (id, day, n, user_id, created_at, updated_at, turns, title,
    input_tokens, output_tokens, last_user, last_host, meta)
VALUES (%(id)s, %(day)s, %(n)s, %(user_id)s, %(created_at)s, %(updated_at)s, %(turns)s,
    %(title)s, %(input_tokens)s, %(output_tokens)s, %(last_user)s, %(last_host)s, %(meta)s)
ON CONFLICT (id) DO {conflict}
RETURNING id"""
_UPDATE_ALL = ", ".join(
    f"{c} = EXCLUDED.{c}" for c in ("user_id", "created_at", "updated_at", "turns", "title",
                                    "input_tokens", "output_tokens", "last_user", "last_host",
                                    "meta"))
# Make the day's counter at least N (a session that arrived with its id: import, save).
_BUMP = """
INSERT INTO birdie_session_days (day, last_n) VALUES (%s, %s)
ON CONFLICT (day) DO UPDATE SET last_n = GREATEST(birdie_session_days.last_n, EXCLUDED.last_n)"""
_NEXT = """
INSERT INTO birdie_session_days (day, last_n) VALUES (%s, 1)
ON CONFLICT (day) DO UPDATE SET last_n = birdie_session_days.last_n + 1
RETURNING last_n"""


def _split(session_id: str) -> tuple[date, int]:
    day, _, n = validate_session_id(session_id).rpartition("_")
    return date.fromisoformat(day), int(n)


class PgSessionStore(SessionStoreBase):
    """The sessions of a shared database, as seen by `user` (who writes). Problems found while
    reading go to ``warnings`` (none so far: rows cannot be half-written)."""

    def __init__(self, url: str, user: str) -> None:
        self.url = url
        self.user = validate_user(user)
        self.host = socket.gethostname()
        self.warnings: list[str] = []
        self._db = PgClient(url, self.user, on_connect=lambda conn: migrate(conn, url))
        self._db.run(lambda conn: None)  # connect now: an unreachable database is said at once

    def close(self) -> None:
        self._db.close()

    # -- ids -----------------------------------------------------------------------------------

    def next_id(self, today: date | None = None) -> str:
        """The id `create` would hand out now (nothing is reserved: another process may take it)."""
        day = today or date.today()
        row = self._db.run(lambda conn: conn.execute(
            "SELECT last_n FROM birdie_session_days WHERE day = %s", (day,)).fetchone())
        return f"{day.isoformat()}_{(row[0] if row else 0) + 1}"

    def provisional(self, today: date | None = None) -> SessionMeta:
        """A new session that exists only in memory (``saved`` False) until `create` writes it."""
        return SessionMeta(id=self.next_id(today), user_id=self.user, saved=False)

    def create(self, today: date | None = None, meta: SessionMeta | None = None) -> SessionMeta:
        """Allocate ``YYYY-MM-DD_N`` from the day's counter and insert the row, in one
        transaction. With ``meta`` (a provisional session), that object is written and
        returned, its ``id`` and timestamps replaced by the ones allocated now."""
        day = today or date.today()
        meta = meta if meta is not None else SessionMeta(id="", user_id=self.user)

        def work(conn: psycopg.Connection) -> dict[str, Any]:
            with conn.transaction():
                while True:
                    n = scalar(conn, _NEXT, (day,))
                    sid = f"{day.isoformat()}_{n}"
                    if self._taken_elsewhere(conn, sid):
                        continue
                    meta.id, meta.user_id = sid, self.user
                    meta.created_at = meta.updated_at = _now()
                    data = meta.to_dict()
                    if conn.execute(_UPSERT.format(conflict="NOTHING"),
                                    self._row(sid, self.user, data)).fetchone():
                        return data

        data = self._db.run(work)
        meta.saved = True
        meta.mark_written(data)
        return meta

    @staticmethod
    def _taken_elsewhere(conn: psycopg.Connection, sid: str) -> bool:
        """A tombstone, or a checkpoint thread left without its session, holds `sid`."""
        if conn.execute("SELECT 1 FROM birdie_deleted_sessions WHERE id = %s", (sid,)).fetchone():
            return True
        if scalar(conn, "SELECT to_regclass('checkpoints')") is None:
            return False
        return conn.execute("SELECT 1 FROM checkpoints WHERE thread_id = %s LIMIT 1",
                            (sid,)).fetchone() is not None

    def _row(self, sid: str, owner: str, data: dict[str, Any]) -> dict[str, Any]:
        day, n = _split(sid)
        s = SessionSummary.from_dict(data, id=sid, user_id=owner)
        return {"id": sid, "day": day, "n": n, "user_id": owner, "created_at": s.created_at,
                "updated_at": s.updated_at, "turns": s.turns, "title": s.title,
                "input_tokens": s.input_tokens, "output_tokens": s.output_tokens,
                "last_user": self.user, "last_host": self.host, "meta": Jsonb(data)}

    # -- reading -------------------------------------------------------------------------------

    def exists(self, session_id: str) -> bool:
        return self._db.run(lambda conn: conn.execute(
            "SELECT 1 FROM birdie_sessions WHERE id = %s", (session_id,)).fetchone()) is not None

    def load(self, session_id: str) -> SessionMeta | None:
        """The session's metadata (whoever owns it); None if there is no such session."""
        row = self._db.run(lambda conn: conn.execute(
            "SELECT user_id, meta FROM birdie_sessions WHERE id = %s", (session_id,)).fetchone())
        if row is None:
            return None
        return SessionMeta.from_dict(row[1], id=session_id, user_id=row[0])

    def list(self, include_empty: bool = False, *, keep: str | None = None) -> list[SessionMeta]:
        """Every session of the database, newest first (by date, then N). Empty ones (no
        turn, no title, no history) are left out unless ``include_empty``, or their id is
        ``keep``."""
        rows = self._db.run(lambda conn: conn.execute(
            f"SELECT id, user_id, meta FROM birdie_sessions {_NEWEST_FIRST}").fetchall())
        metas = [SessionMeta.from_dict(data, id=sid, user_id=owner) for sid, owner, data in rows]
        return self._without_empty(metas, include_empty, keep)

    def summaries(self, include_empty: bool = False, *,
                  keep: str | None = None) -> builtins.list[SessionSummary]:
        """`list`'s sessions, by the same rules, as read-only summaries: one indexed query
        over the list columns (the JSON is not read)."""
        rows = self._db.run(lambda conn: conn.execute(_SUMMARY + _NEWEST_FIRST).fetchall())
        return self._without_empty([SessionSummary._make(row)._replace(title=decode(row[5]))
                                    for row in rows], include_empty, keep)

    def _without_empty(self, metas: builtins.list[Listed], include_empty: bool,
                       keep: str | None) -> builtins.list[Listed]:
        return without_empty(metas, include_empty, keep, self._threads)

    def _threads(self, among: builtins.list[str]) -> set[str] | None:
        """Which of `among` have checkpointed history; None if that cannot be read."""
        def work(conn: psycopg.Connection) -> set[str]:
            if scalar(conn, "SELECT to_regclass('checkpoints')") is None:
                return set()
            return {r[0] for r in conn.execute(
                "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id = ANY(%s)",
                (among,))}
        try:
            return self._db.run(work)
        except psycopg.Error:  # keep the sessions listed rather than hide a conversation
            return None

    def latest(self, include_empty: bool = False) -> SessionMeta | None:
        """This user's newest session (by id; `--continue`), skipping empty ones unless
        ``include_empty``. Other people's sessions are opened by id, never by accident."""
        rows = self._db.run(lambda conn: conn.execute(
            f"SELECT id, turns, title FROM birdie_sessions WHERE user_id = %s {_NEWEST_FIRST}",
            (self.user,)).fetchall())
        ids = [sid for sid, *_ in rows]
        if not include_empty:
            kept = self._without_empty([SessionSummary(sid, self.user, "", "", turns, title, 0, 0)
                                        for sid, turns, title in rows], False, None)
            ids = [s.id for s in kept]
        for sid in ids:
            meta = self.load(sid)
            if meta is not None:
                return meta
        return None

    # -- writing -------------------------------------------------------------------------------

    def save(self, meta: SessionMeta) -> None:
        """Write ``meta``, stamping ``updated_at``: the keys changed in memory since it was
        read, over the row as it is now (see `session_merge`), under the row's lock. A session
        deleted meanwhile (by anyone) is not brought back."""
        meta.user_id = meta.user_id or self.user
        meta.updated_at = _now()
        mine = meta.to_dict()
        base = meta.base()

        def work(conn: psycopg.Connection) -> None:
            with conn.transaction():
                row = conn.execute("SELECT user_id, meta FROM birdie_sessions WHERE id = %s "
                                   "FOR UPDATE", (meta.id,)).fetchone()
                if row is None:
                    self._insert_with_id(conn, meta.id, meta.user_id, mine)
                    return
                data = merge_session(base, mine, row[1] if base is not None else None)
                conn.execute(_UPSERT.format(conflict="UPDATE SET " + _UPDATE_ALL),
                             self._row(meta.id, row[0], data))

        self._db.run(work)
        meta.mark_written(mine)

    def _insert_with_id(self, conn: psycopg.Connection, sid: str, owner: str,
                        data: dict[str, Any]) -> bool:
        """Insert a session that comes with its id (unless deleted); the day's counter moves
        past it. False when the id is a deleted session's."""
        if conn.execute("SELECT 1 FROM birdie_deleted_sessions WHERE id = %s", (sid,)).fetchone():
            return False
        day, n = _split(sid)
        conn.execute(_BUMP, (day, n))
        conn.execute(_UPSERT.format(conflict="UPDATE SET " + _UPDATE_ALL),
                     self._row(sid, owner, data))
        return True

    def update(self, session_id: str, change: Callable[[SessionMeta], bool | None]
               ) -> SessionMeta | None:
        """Apply ``change`` to the session as the database holds it now and write it back,
        in one transaction holding the row's lock. ``change`` returns True (the session was
        active: ``updated_at`` is stamped), False (write it as it is) or None (nothing
        changed: no write). Returns the session as it now stands, or None if there is none."""
        def work(conn: psycopg.Connection) -> tuple[SessionMeta, dict[str, Any] | None] | None:
            with conn.transaction():
                row = conn.execute("SELECT user_id, meta FROM birdie_sessions WHERE id = %s "
                                   "FOR UPDATE", (session_id,)).fetchone()
                if row is None:
                    return None
                meta = SessionMeta.from_dict(row[1], id=session_id, user_id=row[0])
                active = change(meta)
                if active is None:
                    return meta, None
                if active:
                    meta.updated_at = _now()
                written = meta.to_dict()
                conn.execute(_UPSERT.format(conflict="UPDATE SET " + _UPDATE_ALL),
                             self._row(session_id, row[0], written))
                return meta, written

        done = self._db.run(work)
        if done is None:
            return None
        meta, written = done
        if written is not None:
            meta.mark_written(written)
        return meta

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        """The user's write lock: a transaction holding an advisory lock on the user's name.
        Writes made in the block by this store join the transaction."""
        with self._db.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('birdie-tui write ' || %s))",
                         (self.user,))
            yield

    def turn_lock(self, session_id: str) -> PgTurnLock:
        """The session's turn lock (not taken yet): an advisory lock on its own connection."""
        return PgTurnLock(self.url, self.user, session_id)

    def delete(self, session_id: str) -> bool:
        """Drop the session's checkpoint rows and its row, and remember the id as deleted (it
        is never handed out again), in one transaction. True if a session was removed."""
        def work(conn: psycopg.Connection) -> bool:
            with conn.transaction():
                for table in ("checkpoint_writes", "checkpoint_blobs", "checkpoints"):
                    if scalar(conn, "SELECT to_regclass(%s)", (table,)):
                        conn.execute(f"DELETE FROM {table} WHERE thread_id = %s", (session_id,))
                conn.execute("INSERT INTO birdie_deleted_sessions (id, deleted_by) "
                             "VALUES (%s, %s) ON CONFLICT (id) DO NOTHING",
                             (session_id, f"{self.user}@{self.host}"))
                return conn.execute("DELETE FROM birdie_sessions WHERE id = %s RETURNING id",
                                    (session_id,)).fetchone() is not None

        return self._db.run(work)
