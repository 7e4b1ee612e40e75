"""The door's side of agents that run on their own: the run log, the triggers and who runs
them, over the local store.

A mixin of `LocalBirdie` (see `protocol.py` for the contract). Nothing here runs at start:
the run log is opened on first use (the runs view opening, or a turn in a run's session) and
kept until `close`; the triggers are read from the files each time they are asked for.

Who runs the triggers (`scheduler_holder`): what `agents start` wrote into
`$BIRDIE_HOME/scheduler.lock` (`schedules/lock.py`, `holder`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.rows import RunRecord, TriggerRow

if TYPE_CHECKING:
    from birdie_tui.agent.engine import Engine
    from birdie_tui.service.local.runs import PendingRun
    from birdie_tui.store.protocols import RunLogProtocol

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
        return [TriggerRow(trigger=trigger, next_fire=next_fire(trigger, now),
                           last=log.last(trigger.key)) for trigger in found.triggers]

    def scheduler_holder(self) -> str | None:
        from birdie_tui.schedules.lock import holder

        return holder(self._shown.paths.home)


def _cwd() -> Path:
    try:
        return Path.cwd()
    except OSError:  # the folder was removed under us: no project folders
        return Path.home()
