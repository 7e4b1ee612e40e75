"""The engine's side of approvals: the mode, the rules a turn runs under, answers remembered
in the session JSON, and approvals still pending in a session's checkpoint (a mixin of Engine).

Pending approvals are LangGraph interrupts (see `graph.run_tools`): they are read back from the
checkpoint, so a session killed while a dialog was open asks again when it is opened again, and
`--print --approve/--deny` can answer them from another process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from birdie_tui.agent.approvals import (
    APPROVAL_RULES,
    APPROVED_SKILLS,
    MODES,
    ApprovalAnswer,
    ApprovalPolicy,
    ApprovalRequest,
)
from birdie_tui.agent.options import EngineError
from birdie_tui.store.session_meta import str_list


class ApprovalOps:
    """Needs from the engine: `_graph`, `_config()`, `session`, `sessions`, `settings`,
    `require_session()`."""

    _approval_mode: str | None = None

    # ------------------------------------------------------------------ mode
    @property
    def approval_mode(self) -> str:
        return self._approval_mode or self.settings.approval_mode

    def set_approval_mode(self, mode: str) -> str:
        if mode not in MODES:
            raise EngineError(f"unknown approval mode {mode!r}; one of {', '.join(MODES)}")
        self._approval_mode = mode
        return mode

    # ----------------------------------------------------------------- rules
    def approval_policy(self) -> ApprovalPolicy:
        extra = self.session.extra if self.session is not None else {}
        return ApprovalPolicy.build(
            mode=self.approval_mode, settings_rules=self.settings.permissions,
            session_rules=str_list(extra.get(APPROVAL_RULES)),
            approved_skills=str_list(extra.get(APPROVED_SKILLS)), workdir=Path.cwd())

    def session_approvals(self) -> tuple[list[str], list[str]]:
        """(approved skills, allow rules) saved in the open session."""
        extra = self.session.extra if self.session is not None else {}
        return str_list(extra.get(APPROVED_SKILLS)), str_list(extra.get(APPROVAL_RULES))

    def remember(self, request: ApprovalRequest, answer: ApprovalAnswer) -> str | None:
        """Save an "always" answer in the session JSON; returns what was saved (for the UI)."""
        saved = request.saved_as(answer)
        if saved is None:
            return None
        meta = self.require_session()
        key, item = saved
        items = str_list(meta.extra.get(key))
        if item not in items:
            meta.extra[key] = [*items, item]
            if meta.saved:
                self.sessions.save(meta)
        return item

    def forget_approvals(self) -> None:
        """Drop the session's saved approvals (skills and rules)."""
        meta = self.require_session()
        meta.extra.pop(APPROVAL_RULES, None)
        meta.extra[APPROVED_SKILLS] = []
        if meta.saved:
            self.sessions.save(meta)

    # --------------------------------------------------------------- pending
    async def _no_interrupt_written(self, thread_id: str) -> bool:
        """True when the thread's latest checkpoint surely has no interrupt pending (one
        indexed query); False when it may, or cannot be told."""
        checkpoints = getattr(self, "_checkpoints", None)
        if checkpoints is None:
            return False
        return await checkpoints.no_interrupt_written(thread_id)

    async def ask_approvals(self, pending: list[ApprovalRequest], approver: Any
                            ) -> tuple[dict[str, dict[str, Any]], list[ApprovalRequest]]:
        """Answer each request: by a rule saved meanwhile (an "always" given for an earlier
        call of the step), else by `approver`. Returns (resume value, requests left pending);
        anything left pending leaves the whole step pending."""
        answers: dict[str, dict[str, Any]] = {}
        waiting: list[ApprovalRequest] = []
        for request in pending:
            verdict = self.approval_policy().decide(
                name=request.name, command=request.command, skill_name=request.skill,
                gated=True, why=request.why, args=request.args)
            if verdict.action != "ask":
                answers[request.id] = ApprovalAnswer(verdict.action, reason=verdict.why).to_dict()
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
        state = await self._graph.aget_state(self._config())
        closed = closing_results(state.values.get("messages", []), pending)
        if closed:
            await self._graph.aupdate_state(self._config(), {"messages": closed},
                                            as_node="tools")

    async def pending_approvals(self, session_id: str | None = None) -> list[ApprovalRequest]:
        """The approvals a session's last step is waiting for (empty: none)."""
        if session_id is None and (self.session is None or not self.session.saved):
            return []
        config = self._config(session_id)
        if await self._no_interrupt_written(config["configurable"]["thread_id"]):
            return []  # the usual case, without reading (and decoding) the whole history
        state = await self._graph.aget_state(config)
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


def closing_results(messages: list[Any], pending: list[ApprovalRequest]) -> list[Any]:
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
        status="error", id=standins.get(call["id"])) for call in last.tool_calls]


def resume_value(resume: dict[str, ApprovalAnswer], pending: list[ApprovalRequest]
                 ) -> dict[str, dict[str, Any]]:
    """The resume value for a pending step: an answer per pending call; a call without one
    is denied (never run by default)."""
    return {request.id: (resume.get(request.id) or ApprovalAnswer(
        "deny", reason="not answered")).to_dict() for request in pending}

