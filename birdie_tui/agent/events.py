"""The one event vocabulary from the engine to any front end (docs/contracts.md, stream-json
events).

Turn events (session … cancelled) are what `run_turn` yields: `--print --output-format
stream-json` writes `event.to_dict()` one per line. Change events (skills … recovered) are what
the service (`birdie_tui.service`) tells a front end between turns, so no helper has to reach
back into a UI to refresh it; they say what changed, and the UI reads the new rows through the
service. The TUI wraps every event in one Textual message. Plain dataclasses: importing this
module costs nothing.
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
    detail: str = ""  # e.g. "loaded at turn 3 · 2 more turns of lease"

    def to_dict(self) -> dict[str, Any]:  # the detail travels in the segments
        return {"name": self.name, "reason": self.reason, "tokens": self.tokens}


@dataclass
class SkillsInjected(TurnEvent):
    """What the system prompt of one model call carried, and why."""

    type: ClassVar[str] = "injected"
    skills: list[InjectedSkill] = field(default_factory=list)
    catalog_tokens: int = 0  # Tier 1 size
    memory: list[str] = field(default_factory=list)  # Tier 3 entries
    prompt_tokens: int = 0  # whole system prompt, estimated
    segments: list[Any] = field(default_factory=list)  # provenance.Segment, in prompt order
    context: Any = None  # provenance.CallContext of this call (turn, call, evictions...)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "skills": [s.to_dict() for s in self.skills]}
        if self.context is not None:  # added later; the keys above keep their meaning
            ctx = self.context
            out.update(turn=ctx.turn, call=ctx.call,
                       segments=[s.to_dict() for s in ctx.segments],
                       evicted=[{"name": n, "why": why} for n, why in ctx.evicted],
                       not_loaded=list(ctx.not_loaded))
        return out


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
    decision: str  # "approved" | "denied" | "pending" (a headless turn stopped to ask)
    args: dict[str, Any] | None = None  # with "pending" only

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.args is None:
            del out["args"]
        return out


@dataclass
class UsageReported(TurnEvent):
    """Once per model call."""

    type: ClassVar[str] = "usage"
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0  # of input_tokens; not part of the JSON contract

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens}


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


# ------------------------------------------------------------ changes outside a turn
@dataclass
class SkillsChanged(TurnEvent):
    """The skill rows changed: a grant, a reload, an MCP server that started or failed."""

    type: ClassVar[str] = "skills"


@dataclass
class SkillsReloaded(TurnEvent):
    """The skill folders were rescanned; `summary` says what changed ("" for nothing)."""

    type: ClassVar[str] = "reloaded"
    summary: str
    trouble: bool = False  # a file broke or cannot be loaded
    forced: bool = False  # asked for (/skill reload), so "no changes" is worth saying


@dataclass
class StatusChanged(TurnEvent):
    """The session's title, the model, or the turn count changed."""

    type: ClassVar[str] = "status"


@dataclass
class TotalsChanged(TurnEvent):
    """The token ledger changed (a call completed, a turn was recorded or taken back)."""

    type: ClassVar[str] = "totals"
    session_in: int = 0
    session_out: int = 0


@dataclass
class MemoryChanged(TurnEvent):
    type: ClassVar[str] = "memory"
    count: int = 0


@dataclass
class McpFailed(TurnEvent):
    """An MCP server could not start (said once per failure)."""

    type: ClassVar[str] = "mcp_failed"
    skill: str = ""
    error: str = ""


@dataclass
class Recovered(TurnEvent):
    """A damaged file was moved aside and replaced (said once per file)."""

    type: ClassVar[str] = "recovered"
    message: str = ""


@dataclass
class SessionBusy(TurnEvent):
    """A turn waits: another process is running one on the same session."""

    type: ClassVar[str] = "session_busy"
    message: str = ""


def event_types() -> dict[str, type[TurnEvent]]:
    """Every event of the vocabulary by its `type` (a UI checks it handles them all)."""
    return {cls.type: cls for cls in TurnEvent.__subclasses__()}


@dataclass
class Compacted(TurnEvent):
    """The conversation was compacted (by /compact, or automatically before a turn); `error`
    says why an automatic one could not be done (the turn went on without it)."""

    type: ClassVar[str] = "compacted"
    messages: int = 0  # newly summarised
    tokens_before: int = 0
    tokens_after: int = 0
    auto: bool = False
    error: str = ""
