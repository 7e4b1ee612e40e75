"""What one turn of a run said, read from its events: the answer, the error, the calls left
waiting, and the run's status from it. Shared by the runner (`schedules/runner.py`) and the
door that settles a pending run answered later (`service/local/runs.py`); light (no engine).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from birdie_tui.events import ApprovalDecided, TurnDone, TurnError, TurnEvent
from birdie_tui.schedules.models import RunStatus


@dataclass
class RunTurn:
    """What the run's turn said: its answer, its error, the calls left waiting."""

    reply: str = ""
    error: str | None = None
    waiting: list[str] = field(default_factory=list)  # "tool (call id)"
    ended: bool = False  # a done, an error or a stop for approval was seen (else: cancelled)

    def see(self, event: TurnEvent) -> None:
        if isinstance(event, TurnError):
            self.error, self.ended = event.message, True
        elif isinstance(event, TurnDone):
            self.reply, self.ended = event.text, True
        elif isinstance(event, ApprovalDecided) and event.decision == "pending":
            self.waiting.append(f"{event.name} (call {event.id})")
            self.ended = True

    @property
    def status(self) -> RunStatus:
        if not self.ended:
            return "cancelled"
        return "failed" if self.error else "pending" if self.waiting else "done"

    @property
    def note(self) -> str | None:
        """The record's one line: the error, or what a pending run waits for."""
        if self.error:  # a turn's error is a line already; a stray newline is not kept
            return " ".join(self.error.split())[:400] or "the turn failed"
        return f"waits for approval: {', '.join(self.waiting)}" if self.waiting else None


__all__ = ["RunTurn"]
