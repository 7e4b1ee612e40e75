"""`PgRunLog`: one user's run log in the shared database (`birdie_runs`), with
`store.run_log.SqliteRunLog`'s API, and the claims (`birdie_run_claims`) that let exactly one
of the schedulers sharing the database run a trigger's firing: the row's primary key is
(user, trigger, fire time), and only the INSERT that made the row wins.

Text is NUL-escaped on the way in by the connection (`nul_text`) and decoded on the way out.
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from birdie_tui.schedules.models import RunRecord

from ..run_rows import COLUMNS, record_from_row, record_row, stamp
from .user_rows import PgUserRows
from .nul_text import decode

__all__ = ["PgRunLog"]

_PG_COLUMNS = tuple("user_id" if c == "user" else c for c in COLUMNS)
_SELECT = f"SELECT {', '.join(_PG_COLUMNS)} FROM birdie_runs"
_PATHS = COLUMNS.index("changed_paths")
_TEXT = {i for i, c in enumerate(COLUMNS) if c in ("trigger_key", "agent", "trigger", "error",
                                                   "answer", "host", "session_id")}
_UPDATES = ", ".join(f"{c} = EXCLUDED.{c}" for c in _PG_COLUMNS if c != "run_id")


class PgRunLog(PgUserRows):
    def _rows(self, where: str, params: tuple[Any, ...]) -> builtins.list[RunRecord]:
        rows = self._db.run(lambda conn: conn.execute(
            f"{_SELECT} WHERE user_id = %s AND {where}", (self.user, *params)).fetchall())
        return [record_from_row([decode(v) if i in _TEXT else v for i, v in enumerate(row)])
                for row in rows]

    def save(self, record: RunRecord) -> None:
        values = list(record_row(record))
        values[COLUMNS.index("user")] = self.user  # the log is one user's, whatever it says
        values[_PATHS] = Jsonb(list(record.changed_paths))  # jsonb dumps escape NUL too
        marks = ", ".join("%s" for _ in _PG_COLUMNS)
        self._db.run(lambda conn: conn.execute(
            f"INSERT INTO birdie_runs ({', '.join(_PG_COLUMNS)}) VALUES ({marks}) "
            f"ON CONFLICT (run_id) DO UPDATE SET {_UPDATES}", values))

    def get(self, run_id: str) -> RunRecord | None:
        found = self._rows("run_id = %s", (run_id,))
        return found[0] if found else None

    def for_session(self, session_id: str) -> RunRecord | None:
        found = self._rows("session_id = %s ORDER BY started_at DESC LIMIT 1", (session_id,))
        return found[0] if found else None

    def list(self, agent: str | None = None, limit: int = 50) -> builtins.list[RunRecord]:
        """Newest first; `agent` also names a settings schedule (`schedule:<agent>`)."""
        if agent is None:
            return self._rows("true ORDER BY started_at DESC, run_id LIMIT %s",
                              (max(limit, 0),))
        return self._rows("(agent = %s OR (agent IS NULL AND trigger_key = %s)) "
                          "ORDER BY started_at DESC, run_id LIMIT %s",
                          (agent, f"schedule:{agent}", max(limit, 0)))

    def last(self, trigger_key: str) -> RunRecord | None:
        found = self._rows("trigger_key = %s ORDER BY started_at DESC LIMIT 1", (trigger_key,))
        return found[0] if found else None

    def claim(self, trigger_key: str, fire_time: datetime, owner: str) -> bool:
        def work(conn: psycopg.Connection) -> bool:
            key = (self.user, trigger_key, stamp(fire_time))
            row = conn.execute(
                "INSERT INTO birdie_run_claims (user_id, trigger_key, fire_time, owner) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING owner",
                (*key, owner)).fetchone()
            if row is None:  # taken; by us when a dropped connection made `run` try again
                row = conn.execute(
                    "SELECT owner FROM birdie_run_claims WHERE user_id = %s AND "
                    "trigger_key = %s AND fire_time = %s", key).fetchone()
            return row is not None and decode(row[0]) == owner
        return self._db.run(work)
