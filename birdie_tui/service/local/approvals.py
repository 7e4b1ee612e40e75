"""The door's side of approvals: the mode, answering a session's pending step, and
the approvals saved in a session.

A mixin of `LocalBirdie` (see `protocol.py` for the contract). Cheap to import: the engine's
modules are imported inside the methods.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Protocol

from birdie_tui.agent.approvals import MODES, ApprovalAnswer, ApprovalRequest
from birdie_tui.events import ChangeEvent, StatusChanged, TurnEvent
from birdie_tui.modes import ApprovalMode, approval_mode_of
from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.protocol import Approver, BirdieError
from birdie_tui.workspace import Workspace


class TurnRunner(Protocol):
    """`LocalBirdie._turn`: a turn sent, or a pending step resumed with `resume`."""

    def __call__(self, text: str, *, approver: Approver | None = None,
                 resume: dict[str, ApprovalAnswer] | None = None,
                 workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]: ...


class LocalApprovals(OnDesk):
    _emit: Callable[[ChangeEvent], None]
    _turn: TurnRunner

    def approval_mode(self) -> ApprovalMode:
        return approval_mode_of(self._shown.approval_mode) or "ask"

    def set_approval_mode(self, mode: str | None = None) -> ApprovalMode:
        """Set the mode (ask, auto, read-only); None: the next one, in that order."""
        from birdie_tui.agent.options import EngineError

        if mode is None:
            mode = MODES[(MODES.index(self._shown.approval_mode) + 1) % len(MODES)]
        try:
            self._shown.set_approval_mode(mode)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        self._emit(StatusChanged())
        return self.approval_mode()

    def decided_answer(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        """The engine's answer to a pending request by the mode and rules (auto, read-only, a
        rule); None: the user is to be asked. The TUI asks only then."""
        return self._shown.approvals.decided(request)

    async def pending_approvals(self) -> list[ApprovalRequest]:
        """What the open session's last step waits for (after a restart, or a --print that
        stopped to ask)."""
        return await self._shown.pending_approvals()

    def resume(self, answers: dict[str, ApprovalAnswer] | None = None, *,
               approver: Approver | None = None,
               workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]:
        """Finish the pending step: calls in `answers` are decided, the others are asked
        through `approver` (a dialog), and the turn runs on; its events come back as from
        `send` (its bash: tools using `workspace`, as `send` says)."""
        return self._turn("", approver=approver, resume=dict(answers or {}),
                          workspace=workspace)

    def saved_approvals(self) -> tuple[list[str], list[str]]:
        """(skills approved for the session, "always allow" rules) saved in it."""
        return self._shown.approvals.saved()

    def forget_approvals(self) -> None:
        self._shown.approvals.forget()
        self._emit(StatusChanged())
