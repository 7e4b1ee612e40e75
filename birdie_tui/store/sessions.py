"""Session metadata files (``sessions/<user>/<YYYY-MM-DD_N>.json``): ids, load/save, listing, delete.

History itself lives in ``checkpoints.db`` (LangGraph, thread_id = session id); this module only
reads that database's thread ids and drops a deleted session's rows, with plain sqlite3.

Ids are never reused: deleting a session leaves an empty ``<id>.deleted`` tombstone that id
allocation counts (Birdie 0.1.5 only reads ``<id>.json`` and never sees it).

Lists for people (the browser, ``sessions list``) come from `SessionStore.summaries`, served by
a rebuildable cache, ``.session-index`` (see `session_index`); `list` reads every file.

Several processes may share a session (see `session_lock`): writes are read-modify-write under
the user's write lock — `save` merges what this process changed into the file as it is now
(`session_merge`), `update` applies a change to the file's current content — and a turn holds
the session's turn lock (`turn_lock`).
"""

from __future__ import annotations

import builtins
import os
import re
import sqlite3
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import date
from pathlib import Path
from typing import Any

from .jsonio import FILE_MODE, dumps_readable, read_json, write_json_atomic
from .paths import BirdiePaths, validate_user
from .session_index import SESSION_FILE_RE as _SESSION_FILE_RE
from .session_index import SessionIndex
from .session_lock import WRITE_LOCK_NAME, TurnLock, write_lock
from .session_merge import merge_session
from .session_common import Listed, SessionStoreBase, is_empty, without_empty
from .session_meta import TOKEN_LOG_LIMIT, SessionMeta, SessionSummary, _now

__all__ = ["TOKEN_LOG_LIMIT", "TOMBSTONE_SUFFIX", "SessionMeta", "SessionStore", "SessionSummary",
           "without_empty"]

TOMBSTONE_SUFFIX = ".deleted"
LOCK_SUFFIX = ".lock"
# A just-claimed file is empty until its creator writes it; don't mistake that for corruption.
_IN_FLIGHT_SECONDS = 30.0
# How many session files' last written content a store keeps (see `_remember`).
_KNOWN_FILES = 8
# A file's identity: the inode of each write is new (files are replaced, never rewritten in
# place) and the rename keeps size and mtime, so an equal key means the same content.
_FileKey = tuple[int, int, int, int]


def _file_key(st: os.stat_result) -> _FileKey:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _sort_key(session_id: str) -> tuple[str, int]:
    day, _, n = session_id.rpartition("_")
    return (day, int(n) if n.isdigit() else 0)


class SessionStore(SessionStoreBase):
    """The session files of one user. Problems found while reading are appended to ``warnings``."""

    def __init__(self, paths: BirdiePaths, user: str) -> None:
        self.paths = paths
        self.user = validate_user(user)
        self.warnings: list[str] = []
        self._index = SessionIndex(self.user_dir, self.user)
        # What this store last wrote to a session file, while that file is still the one it
        # wrote: a turn reads its session back after each checkpoint, and parsing the file it
        # has just written (200-entry logs) was most of the engine's cost per turn.
        # With it, that content parsed (the first time it is needed), handed out as copies.
        self._known: dict[Path, tuple[_FileKey, dict[str, Any]]] = {}
        self._parsed: dict[Path, SessionMeta] = {}

    @property
    def user_dir(self) -> Path:
        return self.paths.user_dir(self.user)

    def close(self) -> None:
        """Nothing to release (files are opened per call); the database store has connections."""

    # -- ids -----------------------------------------------------------------------------------

    def _taken_numbers(self, day: str) -> set[int]:
        """N values already used on ``day``: session files, moved-aside files, tombstones of
        deleted sessions, checkpoint threads."""
        taken: set[int] = set()
        name_re = re.compile(
            rf"^{re.escape(day)}_(\d+)(?:\.json(?:\.corrupt-.*)?|{re.escape(TOMBSTONE_SUFFIX)})$")
        try:
            names = os.listdir(self.user_dir)
        except FileNotFoundError:
            names = []
        for name in names:
            m = name_re.match(name)
            if m:
                taken.add(int(m.group(1)))
        taken.update(self._checkpoint_numbers(day))
        return taken

    def _checkpoint_numbers(self, day: str) -> set[int]:
        # A thread left in checkpoints.db without its JSON must not be handed to a new session.
        out = set()
        for thread_id in self._checkpoint_threads() or ():
            _, _, n = thread_id.rpartition("_")
            if n.isdigit() and thread_id == f"{day}_{n}":
                out.add(int(n))
        return out

    def _checkpoint_threads(self, among: list[str] | None = None) -> set[str] | None:
        """Every thread id in checkpoints.db (one indexed query), or only those ``among`` the
        given ids (looked up by the primary key); None if it cannot be read."""
        db = self.paths.checkpoints_db(self.user)
        if not db.exists():
            return set()
        try:
            conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=1)
            try:
                if among is None:
                    rows = conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
                else:
                    rows = []
                    for at in range(0, len(among), 500):  # under SQLite's variable limit
                        chunk = among[at:at + 500]
                        rows += conn.execute(
                            "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id IN "
                            f"({','.join('?' * len(chunk))})", chunk).fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            return None
        return {str(thread_id) for (thread_id,) in rows}

    def next_id(self, today: date | None = None) -> str:
        """The id `create` would hand out now (nothing is reserved: another process may take it)."""
        day = (today or date.today()).isoformat()
        return f"{day}_{max(self._taken_numbers(day), default=0) + 1}"

    def provisional(self, today: date | None = None) -> SessionMeta:
        """A new session that exists only in memory (``saved`` False) until `create` writes it."""
        return SessionMeta(id=self.next_id(today), user_id=self.user, saved=False)

    def create(self, today: date | None = None, meta: SessionMeta | None = None) -> SessionMeta:
        """Allocate ``YYYY-MM-DD_N`` (N = highest taken + 1) by exclusively creating its JSON file.

        With ``meta`` (a provisional session), that object is written and returned, its ``id``
        and timestamps replaced by the ones allocated now.
        """
        day = (today or date.today()).isoformat()
        self.paths.ensure_user_dir(self.user)
        n = max(self._taken_numbers(day), default=0) + 1
        while True:
            sid = f"{day}_{n}"
            path = self.paths.session_file(self.user, sid)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
            except FileExistsError:
                n += 1
                continue
            now = _now()
            if meta is None:
                meta = SessionMeta(id=sid, user_id=self.user)
            meta.id, meta.user_id = sid, self.user
            meta.created_at = meta.updated_at = now
            data = meta.to_dict()
            try:
                os.write(fd, dumps_readable(data).encode())
                os.fsync(fd)
            finally:
                os.close(fd)
            meta.saved = True
            meta.mark_written(data)
            return meta

    # -- reading -------------------------------------------------------------------------------

    def exists(self, session_id: str) -> bool:
        return self.paths.session_file(self.user, session_id).is_file()

    def load(self, session_id: str) -> SessionMeta | None:
        """The session's metadata; None if missing, still being created, or corrupt (moved aside)."""
        path = self.paths.session_file(self.user, session_id)
        data = self._read_current(path)
        if data is None:
            return None
        return self._meta_of(path, data, session_id)

    def _read(self, path: Path, st: os.stat_result) -> dict[str, Any] | None:
        """A session file's object; None if being created, or corrupt (moved aside, warned)."""
        if st.st_size == 0 and time.time() - st.st_mtime < _IN_FLIGHT_SECONDS:
            return None
        return read_json(path, on_corrupt=self.warnings.append, label="session file",
                         logs_dir=self.paths.logs_dir)

    def _ids_newest_first(self) -> list[str]:
        try:
            names = os.listdir(self.user_dir)
        except FileNotFoundError:
            return []
        ids = [name[: -len(".json")] for name in names if _SESSION_FILE_RE.match(name)]
        return sorted(ids, key=_sort_key, reverse=True)

    def list(self, include_empty: bool = False, *, keep: str | None = None) -> list[SessionMeta]:
        """Readable sessions, newest first (by date, then N numerically). Empty ones (no turn,
        no title, no history) are left out unless ``include_empty``, or their id is ``keep``."""
        metas = [m for m in map(self.load, self._ids_newest_first()) if m is not None]
        return self._without_empty(metas, include_empty, keep)

    def summaries(self, include_empty: bool = False, *,
                  keep: str | None = None) -> builtins.list[SessionSummary]:
        """`list`'s sessions — the same ones, in the same order, by the same rules (empty ones,
        ``keep``, corrupt files moved aside and announced) — as read-only summaries, from the
        index: one directory scan, a stat per file, and only new or changed files read."""
        # Ids of listed files are `YYYY-MM-DD_N`: `_sort_key` without its checks.
        found = self._index.scan(self._read_summary, order=lambda s: (s.id[:10], int(s.id[11:])))
        return self._without_empty(found, include_empty, keep)

    def _read_summary(self, name: str, st: os.stat_result) -> SessionSummary | None:
        data = self._read(self.user_dir / name, st)
        if data is None:
            return None
        return SessionSummary.from_dict(data, id=name[: -len(".json")], user_id=self.user)

    def _without_empty(self, metas: builtins.list[Listed], include_empty: bool,
                       keep: str | None) -> builtins.list[Listed]:
        return without_empty(metas, include_empty, keep, self._checkpoint_threads)

    def latest(self, include_empty: bool = False) -> SessionMeta | None:
        """The newest readable session (by id), skipping empty ones unless ``include_empty``."""
        threads: set[str] | None = None
        for sid in self._ids_newest_first():
            meta = self.load(sid)
            if meta is None:
                continue
            if not include_empty and meta.is_empty:
                threads = self._checkpoint_threads() if threads is None else threads
                if is_empty(meta, threads):
                    continue
            return meta
        return None

    # -- writing -------------------------------------------------------------------------------

    def save(self, meta: SessionMeta) -> None:
        """Write ``meta`` atomically, stamping ``updated_at``: the keys changed in memory since
        it was read, over the file as it is now (see `session_merge`)."""
        path = self.paths.session_file(self.user, meta.id)
        self.paths.ensure_user_dir(self.user)
        meta.user_id = meta.user_id or self.user
        meta.updated_at = _now()
        mine = meta.to_dict()
        with self.write_lock():
            base = meta.base()
            disk = self._read_current(path) if base is not None else None
            written = merge_session(base, mine, disk)
            self._remember(path, write_json_atomic(path, written), written)
        meta.mark_written(mine)

    def update(self, session_id: str, change: Callable[[SessionMeta], bool | None]
               ) -> SessionMeta | None:
        """Apply ``change`` to the session as the file holds it now and write it back, all
        under the write lock. ``change`` returns True (the session was active: ``updated_at``
        is stamped), False (write it as it is) or None (nothing changed: no write). Returns
        the session as it now stands, or None if there is no file."""
        path = self.paths.session_file(self.user, session_id)
        with self.write_lock():
            data = self._read_current(path)
            if data is None:
                return None
            meta = self._meta_of(path, data, session_id)
            active = change(meta)
            if active is None:
                return meta
            if active:
                meta.updated_at = _now()
            written = meta.to_dict()
            self._remember(path, write_json_atomic(path, written), written)
        meta.mark_written(written)
        return meta

    def _read_current(self, path: Path) -> dict[str, Any] | None:
        """The file's object now: what this store wrote there, while the file is still that
        one (one stat), else read. Never changed in place by its callers (it is shared)."""
        try:
            st = path.stat()
        except FileNotFoundError:
            self._known.pop(path, None)
            return None
        known = self._known.get(path)
        if known is not None and known[0] == _file_key(st):
            return known[1]
        return self._read(path, st)

    def _meta_of(self, path: Path, data: dict[str, Any], session_id: str) -> SessionMeta:
        """`SessionMeta.from_dict` of the file's object; of what this store wrote there, parsed
        once (a copy each time: callers change it)."""
        known = self._known.get(path)
        if known is None or known[1] is not data:
            return SessionMeta.from_dict(data, id=session_id, user_id=self.user)
        parsed = self._parsed.get(path)
        if parsed is None or parsed._raw is not data or parsed.id != session_id:
            parsed = self._parsed[path] = SessionMeta.from_dict(data, id=session_id,
                                                                user_id=self.user)
        return parsed.copy()

    def _remember(self, path: Path, st: os.stat_result, written: dict[str, Any]) -> None:
        self._known.pop(path, None)
        self._parsed.pop(path, None)
        self._known[path] = (_file_key(st), written)
        while len(self._known) > _KNOWN_FILES:  # oldest first
            self._parsed.pop(next(iter(self._known)), None)
            del self._known[next(iter(self._known))]

    def write_lock(self) -> AbstractContextManager[None]:
        """The user's write lock (see `session_lock`), a context manager."""
        self.paths.ensure_user_dir(self.user)
        return write_lock(self.user_dir / WRITE_LOCK_NAME)

    def turn_lock(self, session_id: str) -> TurnLock:
        """The session's turn lock (not taken yet)."""
        self.paths.ensure_user_dir(self.user)
        return TurnLock(self.paths.session_file(self.user, session_id).with_suffix(LOCK_SUFFIX))

    def delete(self, session_id: str) -> bool:
        """Drop the session's checkpoint rows, then its JSON. True if a JSON file was removed.

        Rows go first: if the database stays locked the error propagates and the JSON is kept,
        so the id is never reused with stale history attached. A tombstone is written before the
        JSON goes, so the id is never handed out again (an export or ``--session-id`` of the old
        id must not reach a different conversation).
        """
        path = self.paths.session_file(self.user, session_id)
        self._known.pop(path, None)
        self._parsed.pop(path, None)
        self._delete_checkpoint_rows(session_id)
        self._write_tombstone(session_id)
        try:
            path.with_suffix(LOCK_SUFFIX).unlink()
        except FileNotFoundError:
            pass
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True

    def _write_tombstone(self, session_id: str) -> None:
        tomb = self.paths.session_file(self.user, session_id).with_suffix(TOMBSTONE_SUFFIX)
        self.paths.ensure_user_dir(self.user)
        fd = os.open(tomb, os.O_WRONLY | os.O_CREAT, FILE_MODE)
        os.fsync(fd)
        os.close(fd)

    def _delete_checkpoint_rows(self, session_id: str) -> None:
        db = self.paths.checkpoints_db(self.user)
        if not db.is_file():
            return
        for attempt in range(3):
            try:
                conn = sqlite3.connect(db, timeout=5)
                try:
                    tables = {
                        row[0]
                        for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
                    }
                    with conn:
                        for table in ("checkpoints", "writes"):
                            if table in tables:
                                conn.execute(
                                    f"DELETE FROM {table} WHERE thread_id = ?", (session_id,)
                                )
                finally:
                    conn.close()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc) or attempt == 2:
                    raise
                time.sleep(0.2 * (attempt + 1))
