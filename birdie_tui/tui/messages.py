"""Textual messages for what the engine reports, one per turn event (DESIGN.md §3.2).

The worker posts them; widgets react to them. `to_message` is the single bridge from the
engine's typed events, so the UI never reads the engine's stream directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message


@dataclass
class EngineReady(Message):
    """The engine has loaded skills, opened the store and a session."""


@dataclass
class EngineFailed(Message):
    message: str


@dataclass
class TurnStarted(Message):
    text: str


@dataclass
class TokenStreamed(Message):
    text: str


@dataclass
class ToolCallStarted(Message):
    id: str
    name: str
    args: dict[str, Any]


@dataclass
class ToolFinished(Message):
    id: str
    name: str
    content: str
    error: bool


@dataclass
class SkillsInjected(Message):
    report: Any  # birdie_tui.agent.events.SkillsInjected (kept untyped: no engine import here)


@dataclass
class UsageReported(Message):
    input_tokens: int
    output_tokens: int


@dataclass
class ApprovalDecided(Message):
    id: str
    name: str
    decision: str


@dataclass
class TurnFinished(Message):
    text: str


@dataclass
class TurnFailed(Message):
    message: str


@dataclass
class TurnCancelled(Message):
    """Esc (or a session switch) stopped the running turn; the history was repaired."""


@dataclass
class SkillsReloaded(Message):
    summary: str = ""
    changed: list[str] = field(default_factory=list)

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SkillsReloaded)


def to_message(event: Any) -> Message | None:
    """The Textual message for one engine TurnEvent (None for events the UI does not show)."""
    kind = getattr(event, "type", "")
    if kind == "token":
        return TokenStreamed(event.text)
    if kind == "tool_call":
        return ToolCallStarted(event.id, event.name, dict(event.args))
    if kind == "tool_result":
        return ToolFinished(event.id, event.name, event.content, event.error)
    if kind == "injected":
        return SkillsInjected(event)
    if kind == "usage":
        return UsageReported(event.input_tokens, event.output_tokens)
    if kind == "approval":
        return ApprovalDecided(event.id, event.name, event.decision)
    if kind == "done":
        return TurnFinished(event.text)
    if kind == "error":
        return TurnFailed(event.message)
    return None
