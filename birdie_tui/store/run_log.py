"""The run log: a record per run of a trigger or of `agents run` (`RunLogProtocol`).

Embedded: `$BIRDIE_HOME/sessions/<user>/runs.db`, beside the sessions, an sqlite file in WAL
mode with a busy timeout, so a scheduler, `agents run` and the TUI write and read it at once;
its `schema_version` table lets a later birdie-tui change the tables (a newer file is refused,
never written). A file that is not a database, or a damaged one, is moved aside (announced on
the recovery bus) and a new log starts: the sessions and the history are not touched.

`claim(trigger_key, fire_time, owner)` inserts into `claims`, whose key is the firing: exactly
one caller wins, whichever process. With a database URL the log is `store.pg.run_log.PgRunLog`,
the same records in the shared database; `open_run_log` picks.
"""

from __future__ import annotations

import builtins
import sqlite3
import threading
from datetime import datetime, timezone
from typing import Any

from birdie_tui.schedules.models import RunRecord

from .checkpoint_db import COMPANION_SUFFIXES, database_problem
from .jsonio import move_aside
from .paths import BirdiePaths, validate_user
from .protocols import RunLogProtocol
from .recovery import announce
from .run_rows import COLUMNS, record_from_row, record_row, stamp
from .wal_mode import switch_to_wal

__all__ = ["COLUMNS", "RunLogError", "SCHEMA_VERSION", "SqliteRunLog", "open_run_log",
           "record_from_row", "record_row", "stamp"]

SCHEMA_VERSION = 1
_BUSY_SECONDS = 30.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id        TEXT PRIMARY KEY,
    trigger_key   TEXT NOT NULL,
    agent         TEXT,
    trigger       TEXT NOT NULL,
    user          TEXT NOT NULL,
    status        TEXT NOT NULL,
    started_at    TEXT NOT NULL,  -- UTC, ISO 8601 with microseconds: sorts as time does
    finished_at   TEXT,
    fire_time     TEXT,
    session_id    TEXT,
    changed_paths TEXT NOT NULL DEFAULT '[]',  -- a JSON list
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost          REAL,
    error         TEXT,
    answer        TEXT,
    host          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at DESC);
CREATE INDEX IF NOT EXISTS runs_trigger ON runs (trigger_key, started_at DESC);
CREATE INDEX IF NOT EXISTS runs_session ON runs (session_id);
CREATE TABLE IF NOT EXISTS claims (
    trigger_key TEXT NOT NULL,
    fire_time   TEXT NOT NULL,
    owner       TEXT NOT NULL,
    claimed_at  TEXT NOT NULL,
    PRIMARY KEY (trigger_key, fire_time)
);
"""

_SELECT = f"SELECT {', '.join(COLUMNS)} FROM runs"


class RunLogError(OSError):
    """The run log cannot be opened or used: one line naming the file or database."""

    user_facing = True


class SqliteRunLog:
    """One user's run log in `sessions/<user>/runs.db`; safe for several processes (WAL, a
    busy timeout) and for the threads of one (one connection under a lock)."""

    def __init__(self, paths: BirdiePaths, user: str) -> None:
        self.user = validate_user(user)
        self.path = paths.runs_db(self.user)
        self.warnings: list[str] = []
        self._logs_dir = paths.logs_dir
        self._lock = threading.Lock()
        try:
            paths.ensure_user_dir(self.user)
            self._conn = self._open()
        except RunLogError:
            raise
        except OSError as exc:  # a read-only home
            raise RunLogError(f"cannot open the run log {self.path}: "
                              f"{exc.strerror or exc}") from None

    def _open(self) -> sqlite3.Connection:
        problem = database_problem(self.path)
        if problem is not None:
            self._move_aside(problem)
        try:
            return self._connect()
        except sqlite3.OperationalError as exc:
            raise RunLogError(f"cannot open the run log {self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:  # damage the quick check did not see
            self._move_aside(f"is damaged ({exc})")
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=_BUSY_SECONDS, isolation_level=None,
                               check_same_thread=False)
        versions: builtins.list[int] = []
        try:
            switch_to_wal(conn, _BUSY_SECONDS)
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            versions = [v for (v,) in conn.execute("SELECT version FROM schema_version")]
            if not versions:
                conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        if versions and max(versions) > SCHEMA_VERSION:
            conn.close()
            raise RunLogError(f"the run log {self.path} has schema version {max(versions)}, "
                              f"newer than this birdie-tui knows ({SCHEMA_VERSION}): upgrade "
                              "birdie-tui to use it")
        return conn

    def _move_aside(self, problem: str) -> None:
        target = move_aside(self.path)
        for suffix in COMPANION_SUFFIXES:
            companion = self.path.with_name(self.path.name + suffix)
            if companion.exists():
                companion.replace(target.with_name(target.name + suffix))
        message = (f"run log {self.path.name} {problem} and was moved to {target}; a new run "
                   "log starts (sessions are not affected)")
        self.warnings.append(message)
        announce(message, logs_dir=self._logs_dir)

    def _rows(self, query: str, params: tuple[Any, ...]) -> builtins.list[RunRecord]:
        with self._lock:
            rows = self._conn.execute(query, params).fetchall()
        return [record_from_row(row) for row in rows]

    def save(self, record: RunRecord) -> None:
        marks = ", ".join("?" for _ in COLUMNS)
        with self._lock:
            self._conn.execute(f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) "
                               f"VALUES ({marks})", record_row(record))

    def get(self, run_id: str) -> RunRecord | None:
        found = self._rows(f"{_SELECT} WHERE run_id = ?", (run_id,))
        return found[0] if found else None

    def for_session(self, session_id: str) -> RunRecord | None:
        found = self._rows(f"{_SELECT} WHERE session_id = ? ORDER BY started_at DESC LIMIT 1",
                           (session_id,))
        return found[0] if found else None

    def list(self, agent: str | None = None, limit: int = 50) -> builtins.list[RunRecord]:
        """Newest first; `agent` also names a settings schedule (`schedule:<agent>`)."""
        if agent is None:
            return self._rows(f"{_SELECT} ORDER BY started_at DESC, run_id LIMIT ?",
                              (max(limit, 0),))
        return self._rows(f"{_SELECT} WHERE agent = ? OR (agent IS NULL AND trigger_key = ?) "
                          "ORDER BY started_at DESC, run_id LIMIT ?",
                          (agent, f"schedule:{agent}", max(limit, 0)))

    def last(self, trigger_key: str) -> RunRecord | None:
        found = self._rows(f"{_SELECT} WHERE trigger_key = ? ORDER BY started_at DESC LIMIT 1",
                           (trigger_key,))
        return found[0] if found else None

    def claim(self, trigger_key: str, fire_time: datetime, owner: str) -> bool:
        """True for the first owner of (trigger_key, fire_time) only (again for that owner)."""
        now = stamp(datetime.now(timezone.utc))
        with self._lock:
            self._conn.execute(
                "INSERT OR IGNORE INTO claims (trigger_key, fire_time, owner, claimed_at) "
                "VALUES (?, ?, ?, ?)", (trigger_key, stamp(fire_time), owner, now))
            row = self._conn.execute("SELECT owner FROM claims WHERE trigger_key = ? AND "
                                     "fire_time = ?", (trigger_key, stamp(fire_time))).fetchone()
        return row is not None and row[0] == owner

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def open_run_log(paths: BirdiePaths, user: str, database_url: str | None) -> RunLogProtocol:
    """`SqliteRunLog` beside the sessions, or `PgRunLog` on the database at `database_url`."""
    if not database_url:
        return SqliteRunLog(paths, user)
    from .pg.run_log import PgRunLog

    return PgRunLog(database_url, user)
