"""`--print --output-format json`: the turn summed up in one JSON object on stdout once it
ends, in the shape other agent CLIs print (a `result` object with the reply, the session,
usage, cost, the tool calls and why the turn stopped). Exit statuses are `--print`'s own."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from birdie_tui.events import (
    TOOL_LIMIT_NOTE,
    AgentFinished,
    ApprovalDecided,
    ChildEvent,
    ToolCallStarted,
    ToolFinished,
    TurnEvent,
    UsageReported,
)


@dataclass
class TurnSummary:
    """What a turn's events said, gathered while they stream."""

    session_id: str
    started: float = field(default_factory=time.monotonic)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    agents: list[dict[str, Any]] = field(default_factory=list)
    limited: bool = False

    def add(self, event: TurnEvent) -> None:
        if isinstance(event, ChildEvent) and isinstance(event.event, UsageReported):
            event = event.event  # a sub-agent's call: the turn's tokens too
        if isinstance(event, ToolCallStarted):
            self.calls[event.id] = {"id": event.id, "name": event.name, "args": event.args,
                                    "result": None, "error": None}
        elif isinstance(event, ToolFinished):
            call = self.calls.setdefault(event.id, {"id": event.id, "name": event.name,
                                                    "args": {}})
            call.update(result=event.content, error=event.error)
            self.limited = self.limited or event.content.startswith(TOOL_LIMIT_NOTE)
        elif isinstance(event, ApprovalDecided) and event.id in self.calls:
            self.calls[event.id]["approval"] = event.decision
        elif isinstance(event, UsageReported):
            self.input_tokens += event.input_tokens
            self.output_tokens += event.output_tokens
            self.model_calls += 1
        elif isinstance(event, AgentFinished):
            self.agents.append({k: v for k, v in event.to_dict().items() if k != "type"})

    def result(self, *, reply: str, error: str | None, stop_reason: str, code: int,
               cost: float | None, pending: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "result",
            "subtype": "error" if error else "success",
            "is_error": error is not None,
            "exit_code": code,
            "stop_reason": stop_reason,
            "result": reply,
            "error": error,
            "session_id": self.session_id,
            "duration_ms": round((time.monotonic() - self.started) * 1000),
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                      "model_calls": self.model_calls},
            "total_cost_usd": cost,
            "tool_calls": list(self.calls.values()),
            "pending_approvals": pending,
            "agents": self.agents,
        }


def stop_reason(*, error: str | None, waiting: bool, refused: bool, limited: bool) -> str:
    if error is not None:
        return "error"
    if waiting:
        return "approval_pending"
    if refused:
        return "tool_refused"
    return "tool_limit" if limited else "end_turn"
