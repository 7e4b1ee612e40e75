"""A pending run answered later: the turn that answers it (the TUI's dialog on the run's
session, or `--print --session-id SID --approve`) settles the run's record when it ends:
done, failed, pending again, or cancelled; the usage is the session's (the run is the
session), the answer its final reply.

Only a record left pending is settled: a message sent later in a finished run's session is
a conversation of its own and leaves the record as it was.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from birdie_tui.events import TurnEvent
from birdie_tui.schedules.models import RunRecord, run_mark
from birdie_tui.schedules.outcome import RunTurn

if TYPE_CHECKING:
    from birdie_tui.agent.engine import Engine
    from birdie_tui.store.protocols import RunLogProtocol


class PendingRun:
    """The record of the run whose session this turn answers, and what the turn says."""

    def __init__(self, log: RunLogProtocol, record: RunRecord):
        self._log, self._record = log, record
        self._turn = RunTurn()

    @classmethod
    def of(cls, engine: Engine, log: RunLogProtocol) -> PendingRun | None:
        session = engine.session
        mark = run_mark(session.extra) if session is not None else None
        record = log.get(str(mark["run_id"])) if mark is not None else None
        return cls(log, record) if record is not None and record.status == "pending" else None

    def see(self, event: TurnEvent) -> None:
        self._turn.see(event)

    def settle(self, engine: Engine) -> RunRecord:
        """Save the record as the turn left it; a log that fails to write leaves it as it was
        (the session holds the answer)."""
        turn, ledger = self._turn, engine.token_ledger()
        record = self._record.ended(
            status=turn.status, answer=turn.reply or self._record.answer, error=turn.note,
            finished_at=datetime.now(UTC), input_tokens=ledger.session_in,
            output_tokens=ledger.session_out, cost=ledger.cost_usd)
        with contextlib.suppress(Exception):
            self._log.save(record)
        return record


__all__ = ["PendingRun"]
