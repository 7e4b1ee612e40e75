"""The engine's approval desk: the mode, the rules a turn runs under, what the engine
decides without asking, answers remembered in the session JSON, and approvals still pending
in a session's checkpoint. Each open session's engine owns one `ApprovalDesk`; nothing else
decides. The mode is the app's: one `ApprovalModeChoice` (held by `agent/host.py`) for all.

Pending approvals are LangGraph interrupts (see `graph.run_tools`): they are read back from the
checkpoint, so a session killed while a dialog was open asks again when it is opened again, and
`--print --approve/--deny` can answer them from another process.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from birdie_tui.agent.approvals import (
    APPROVAL_RULES,
    APPROVED_SKILLS,
    MODES,
    ApprovalAnswer,
    ApprovalPolicy,
    ApprovalRequest,
    decided_answer,
    session_policy,
)
from birdie_tui.agent.options import EngineError
from birdie_tui.modes import ApprovalMode
from birdie_tui.store import SessionMeta
from birdie_tui.store.session_meta import str_list
from birdie_tui.store.settings import Settings

if TYPE_CHECKING:  # LangChain and LangGraph load with the engine, not with this module
    from langchain_core.messages import BaseMessage
    from langgraph.types import StateSnapshot

# A pending approval: the request -> the user's answer, or None to leave it pending.
Asker = Callable[[ApprovalRequest], Awaitable[ApprovalAnswer | None]]


class StepHistory(Protocol):
    """What the desk reads and writes of its session's checkpointed history
    (`agent.session_history.SessionHistory` gives it)."""

    async def step_state(self, session_id: str | None = None) -> StateSnapshot: ...
    async def close_step(self, results: list[BaseMessage]) -> None: ...
    async def no_interrupt_written(self, session_id: str) -> bool: ...


class SessionSaver(Protocol):
    def save(self, meta: SessionMeta) -> None: ...


class ApprovalModeChoice:
    """The approval mode: the app's, shared by every open session's desk (the host holds
    one). Chosen with `/mode` or shift+tab, else settings.json's."""

    def __init__(self, settings: Callable[[], Settings]):
        self._settings = settings
        self._chosen: ApprovalMode | None = None

    @property
    def mode(self) -> ApprovalMode:
        return self._chosen or self._settings().approval_mode

    def set(self, mode: str) -> ApprovalMode:
        for known in MODES:
            if mode == known:
                self._chosen = known
                return known
        raise EngineError(f"unknown approval mode {mode!r}; one of {', '.join(MODES)}")


class ApprovalDesk:
    """Approvals of one open session: one owner for the policy and every decision taken
    without the user; the mode is the app's (`ApprovalModeChoice`)."""

    def __init__(self, *, mode: ApprovalModeChoice, settings: Callable[[], Settings],
                 session: Callable[[], SessionMeta | None], sessions: SessionSaver,
                 history: StepHistory):
        self._mode = mode
        self._settings = settings
        self._session = session
        self._sessions = sessions
        self._history = history

    # ------------------------------------------------------------------ mode
    @property
    def mode(self) -> ApprovalMode:
        return self._mode.mode

    def set_mode(self, mode: str) -> ApprovalMode:
        return self._mode.set(mode)

    # ----------------------------------------------------------------- rules
    def policy(self) -> ApprovalPolicy:
        session = self._session()
        return session_policy(mode=self.mode, saved=session.extra if session is not None else {},
                              settings_rules=self._settings().permissions, workdir=Path.cwd())

    def decided(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        """The answer the mode and rules give `request` without asking (auto, read-only, a
        deny rule, an "always" saved meanwhile); None: the user must be asked."""
        return decided_answer(self.policy(), request)

    def saved(self) -> tuple[list[str], list[str]]:
        """(approved skills, allow rules) saved in the open session."""
        session = self._session()
        extra = session.extra if session is not None else {}
        return str_list(extra.get(APPROVED_SKILLS)), str_list(extra.get(APPROVAL_RULES))

    def remember(self, request: ApprovalRequest, answer: ApprovalAnswer) -> str | None:
        """Save an "always" answer in the session JSON; returns what was saved (for the UI)."""
        saved = request.saved_as(answer)
        if saved is None:
            return None
        meta = self._require()
        key, item = saved
        items = str_list(meta.extra.get(key))
        if item not in items:
            meta.extra[key] = [*items, item]
            if meta.saved:
                self._sessions.save(meta)
        return item

    def forget(self) -> None:
        """Drop the session's saved approvals (skills and rules)."""
        meta = self._require()
        meta.extra.pop(APPROVAL_RULES, None)
        meta.extra[APPROVED_SKILLS] = []
        if meta.saved:
            self._sessions.save(meta)

    def _require(self) -> SessionMeta:
        meta = self._session()
        if meta is None:
            raise EngineError("no session is open")
        return meta

    # --------------------------------------------------------------- pending
    async def ask(self, pending: list[ApprovalRequest], approver: Asker | None
                  ) -> tuple[dict[str, dict[str, Any]], list[ApprovalRequest]]:
        """Answer each request: by the mode and rules (an "always" given for an earlier call
        of the step), else by `approver`. Returns (resume value, requests left pending);
        anything left pending leaves the whole step pending."""
        answers: dict[str, dict[str, Any]] = {}
        waiting: list[ApprovalRequest] = []
        for request in pending:
            answer = self.decided(request)
            if answer is not None:
                answers[request.id] = answer.to_dict()
                continue
            answer = await approver(request) if approver is not None else None
            if answer is None:
                waiting.append(request)
                continue
            self.remember(request, answer)
            answers[request.id] = answer.to_dict()
        return answers, waiting

    async def close_pending(self, pending: list[ApprovalRequest]) -> None:
        """A new message instead of an answer: the waiting calls are answered "not run", so
        the step is closed and the history stays valid for the next turn."""
        state = await self._history.step_state()
        closed = closing_results(state.values.get("messages", []), pending)
        if closed:
            await self._history.close_step(closed)

    async def pending(self, session_id: str | None = None) -> list[ApprovalRequest]:
        """The approvals a session's last step is waiting for (empty: none)."""
        session = self._session()
        if session_id is None and (session is None or not session.saved):
            return []
        sid = session_id or self._require().id
        if await self._history.no_interrupt_written(sid):
            return []  # the usual case, without reading (and decoding) the whole history
        state = await self._history.step_state(session_id)
        return requests_of(getattr(state, "interrupts", ()))


def interrupts_in(mode: str, data: Any) -> list[ApprovalRequest]:
    """The approval requests a turn's stream says it stopped for (an `updates` item)."""
    if mode != "updates" or not isinstance(data, dict) or "__interrupt__" not in data:
        return []
    return requests_of(data["__interrupt__"])


def requests_of(interrupts: Any) -> list[ApprovalRequest]:
    """The approval requests in LangGraph interrupts (as `graph.run_tools` raises them):
    `Interrupt` objects, or their JSON from a LangGraph server."""
    found: list[ApprovalRequest] = []
    for pending in interrupts or ():
        value = pending.get("value") if isinstance(pending, dict) else \
            getattr(pending, "value", None)
        if isinstance(value, dict):
            found += [ApprovalRequest.from_dict(item) for item in value.get("approvals", [])
                      if isinstance(item, dict)]
    return found


def closing_results(messages: list[Any], pending: list[ApprovalRequest]) -> list[BaseMessage]:
    """A new message instead of an answer: a "not run" result for each call of the waiting
    step, each in its stand-in's place (empty when no step waits)."""
    from langchain_core.messages import ToolMessage

    from birdie_tui.agent.graph import pending_step

    last, standins = pending_step(messages)
    if last is None:
        return []
    waiting = {request.id for request in pending}
    return [ToolMessage(
        content="Not run: the user sent a new message instead of answering the approval."
        if call["id"] in waiting else "Not run: another call of this step was waiting for "
        "approval when the user moved on.", tool_call_id=call["id"], name=call["name"],
        status="error", id=standins.get(call["id"] or "")) for call in last.tool_calls]


def resume_value(resume: dict[str, ApprovalAnswer], pending: list[ApprovalRequest]
                 ) -> dict[str, dict[str, Any]]:
    """The resume value for a pending step: an answer per pending call; a call without one
    is denied (never run by default)."""
    return {request.id: (resume.get(request.id) or ApprovalAnswer(
        "deny", reason="not answered")).to_dict() for request in pending}

