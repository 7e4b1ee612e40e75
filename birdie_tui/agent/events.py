"""Typed turn events: the one path from the engine to any front end (DESIGN.md §3.2).

`--print --output-format stream-json` writes `event.to_dict()` one per line; the TUI turns each
into a Textual message. Plain dataclasses: importing this module costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar


@dataclass
class TurnEvent:
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = getattr(self, f.name)
        return out


@dataclass
class SessionOpened(TurnEvent):
    type: ClassVar[str] = "session"
    id: str
    new: bool


@dataclass
class InjectedSkill:
    name: str
    reason: str  # "trigger:<phrase>" | "always_inject" | "loaded"
    tokens: int
    body: str = ""  # not part of the JSON contract; the TUI shows it on select

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "reason": self.reason, "tokens": self.tokens}


@dataclass
class SkillsInjected(TurnEvent):
    """What the system prompt of one model call carried, and why."""

    type: ClassVar[str] = "injected"
    skills: list[InjectedSkill] = field(default_factory=list)
    catalog_tokens: int = 0  # Tier 1 size
    memory: list[str] = field(default_factory=list)  # Tier 3 entries
    prompt_tokens: int = 0  # whole system prompt, estimated

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "skills": [s.to_dict() for s in self.skills]}


@dataclass
class TokenStreamed(TurnEvent):
    type: ClassVar[str] = "token"
    text: str


@dataclass
class ToolCallStarted(TurnEvent):
    type: ClassVar[str] = "tool_call"
    id: str
    name: str
    args: dict[str, Any]


@dataclass
class ToolFinished(TurnEvent):
    type: ClassVar[str] = "tool_result"
    id: str
    name: str
    content: str
    error: bool


@dataclass
class ApprovalDecided(TurnEvent):
    type: ClassVar[str] = "approval"
    id: str
    name: str
    decision: str  # "approved" | "denied"


@dataclass
class UsageReported(TurnEvent):
    """Once per model call."""

    type: ClassVar[str] = "usage"
    input_tokens: int
    output_tokens: int


@dataclass
class TurnDone(TurnEvent):
    type: ClassVar[str] = "done"
    text: str


@dataclass
class TurnError(TurnEvent):
    type: ClassVar[str] = "error"
    message: str


@dataclass
class TurnCancelled(TurnEvent):
    """A front end stopped the turn (Esc, a session switch) and the history was repaired.
    Only interactive front ends see it: `--print` ends on an interrupt instead."""

    type: ClassVar[str] = "cancelled"


def event_types() -> dict[str, type[TurnEvent]]:
    """Every event of the vocabulary by its `type` (a UI checks it handles them all)."""
    return {cls.type: cls for cls in TurnEvent.__subclasses__()}
