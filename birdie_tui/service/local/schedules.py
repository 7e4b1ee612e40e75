"""The door's side of agents that run on their own: the run log, the triggers and who runs
them, over the local store.

A mixin of `LocalBirdie` (see `protocol.py` for the contract). Nothing here runs at start:
the run log is opened on first use (the runs view opening, or a turn in a run's session) and
kept until `close`; the triggers are read from the files each time they are asked for.

Who runs the triggers (`scheduler_holder`): `$BIRDIE_HOME/scheduler.lock`, the JSON
{"host", "pid", "started_at"} that `agents start` writes and holds with flock. It is not
locked here to test it (that could make a scheduler starting at that moment fail): a lock of
this machine counts while its pid is alive; one written by another machine (a home shared
over the network) counts as long as the file says so, since this machine cannot see that
process.
"""

from __future__ import annotations

import json
import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.rows import RunRecord, TriggerRow

if TYPE_CHECKING:
    from birdie_tui.agent.engine import Engine
    from birdie_tui.service.local.runs import PendingRun
    from birdie_tui.store.protocols import RunLogProtocol

LOCK_FILE = "scheduler.lock"


class LocalSchedules(OnDesk):
    """`scheduled_runs`, `trigger_rows`, `scheduler_holder` over the local store."""

    _opened_run_log: RunLogProtocol | None = None

    def _run_log(self) -> RunLogProtocol:
        """The user's run log, beside the sessions (the engine's store), opened once."""
        if self._opened_run_log is None:
            from birdie_tui.store.run_log import open_run_log

            engine = self._shown
            self._opened_run_log = open_run_log(engine.paths, engine.user, engine.database_url)
        return self._opened_run_log

    def _close_run_log(self) -> None:
        log, self._opened_run_log = self._opened_run_log, None
        if log is not None:
            log.close()

    def _pending_run(self, engine: Engine) -> PendingRun | None:
        """The pending run this turn answers, when the session is one (`runs.py`)."""
        from birdie_tui.schedules.models import run_mark

        session = engine.session
        if session is None or run_mark(session.extra) is None:  # most turns stop here
            return None
        from birdie_tui.service.local.runs import PendingRun

        try:
            return PendingRun.of(engine, self._run_log())
        except Exception:  # noqa: BLE001 - an unreadable log never stops a turn
            return None

    def scheduled_runs(self, agent: str | None = None, limit: int = 100) -> list[RunRecord]:
        return self._run_log().list(agent, limit)

    def trigger_rows(self) -> list[TriggerRow]:
        from birdie_tui.schedules.loading import load_triggers
        from birdie_tui.schedules.timing import next_fire

        engine = self._shown
        found = load_triggers(engine.paths, engine.options.environ, _cwd(),
                              engine.agent.agent_dirs)
        log, now = self._run_log(), datetime.now(UTC)
        rows = []
        for trigger in found.triggers:
            last = log.last(trigger.key)
            rows.append(TriggerRow(trigger=trigger, next_fire=next_fire(trigger, last, now),
                                   last=last))
        return rows

    def scheduler_holder(self) -> str | None:
        engine = self._shown
        return lock_holder(engine.paths.home / LOCK_FILE)


def lock_holder(path: Path) -> str | None:
    """"<host>:<pid>" of the scheduler holding the lock at `path`, or None (see the module's
    docstring for what counts)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        host, pid = str(data["host"]), int(data["pid"])
    except (OSError, ValueError, TypeError, KeyError):
        return None  # none, or a file being written: nobody known
    if host == socket.gethostname() and not _alive(pid):
        return None
    return f"{host}:{pid}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    except OSError:
        return False
    return pid > 0


def _cwd() -> Path:
    try:
        return Path.cwd()
    except OSError:  # the folder was removed under us: no project folders
        return Path.home()
