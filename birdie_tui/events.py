"""The one event vocabulary from the engine to any front end (docs/contracts.md, stream-json
events).

Two closed unions, named by the front door's signatures (`birdie_tui.service.protocol`):

- `TurnEvent`: what a turn yields (`send`, `resume`, the engine's `run_turn`). `--print
  --output-format stream-json` writes `event.to_dict()` one per line.
- `ChangeEvent`: what the service tells its listeners between turns (skills, session, status,
  totals, memory, MCP failures, recovered files), so no helper has to reach back into a UI to
  refresh it; they say what changed, and the UI reads the new rows through the service.

`SessionOpened` is in both: the first line of a `--print` turn, and the news that the open
session changed. Every event is a frozen dataclass (a front end cannot change what another one
sees; make a changed copy with `dataclasses.replace`). A front end dispatches with `match` on
the classes; `Event` is the whole vocabulary. Importing this module costs nothing: it lives
outside `agent/` so a front end can name the events without the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, get_args

if TYPE_CHECKING:
    from birdie_tui.agent.provenance import CallContext, Segment


@dataclass(frozen=True)
class BaseEvent:
    """What every event has: its `type` (the stream-json name) and its JSON form."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = getattr(self, f.name)
        return out


@dataclass(frozen=True)
class SessionOpened(BaseEvent):
    type: ClassVar[str] = "session"
    id: str
    new: bool


@dataclass(frozen=True)
class InjectedSkill:
    name: str
    reason: str  # "trigger:<phrase>" | "always_inject" | "loaded"
    tokens: int
    body: str = ""  # not part of the JSON contract; the TUI shows it on select
    detail: str = ""  # e.g. "loaded at turn 3 · 2 more turns of lease"

    def to_dict(self) -> dict[str, Any]:  # the detail travels in the segments
        return {"name": self.name, "reason": self.reason, "tokens": self.tokens}


@dataclass(frozen=True)
class SkillsInjected(BaseEvent):
    """What the system prompt of one model call carried, and why."""

    type: ClassVar[str] = "injected"
    skills: list[InjectedSkill] = field(default_factory=list)
    catalog_tokens: int = 0  # Tier 1 size
    memory: list[str] = field(default_factory=list)  # Tier 3 entries
    prompt_tokens: int = 0  # whole system prompt, estimated
    segments: list[Segment] = field(default_factory=list)  # in prompt order
    context: CallContext | None = None  # this call's provenance (turn, call, evictions...)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "skills": [s.to_dict() for s in self.skills]}
        if self.context is not None:  # added later; the keys above keep their meaning
            ctx = self.context
            out.update(turn=ctx.turn, call=ctx.call,
                       segments=[s.to_dict() for s in ctx.segments],
                       evicted=[{"name": n, "why": why} for n, why in ctx.evicted],
                       not_loaded=list(ctx.not_loaded))
        return out


@dataclass(frozen=True)
class TokenStreamed(BaseEvent):
    type: ClassVar[str] = "token"
    text: str


@dataclass(frozen=True)
class ToolCallStarted(BaseEvent):
    type: ClassVar[str] = "tool_call"
    id: str
    name: str
    args: dict[str, Any]  # the call's JSON arguments


@dataclass(frozen=True)
class ToolFinished(BaseEvent):
    type: ClassVar[str] = "tool_result"
    id: str
    name: str
    content: str
    error: bool


# How a tool result starts when the turn's tool-call limit stopped the call (a front end that
# reports why a turn ended, as ACP's `max_turn_requests`, reads it).
TOOL_LIMIT_NOTE = "Not run: the tool-call limit of this turn"


@dataclass(frozen=True)
class ApprovalDecided(BaseEvent):
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


@dataclass(frozen=True)
class UsageReported(BaseEvent):
    """Once per model call."""

    type: ClassVar[str] = "usage"
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0  # of input_tokens; not part of the JSON contract

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens}


@dataclass(frozen=True)
class TurnDone(BaseEvent):
    type: ClassVar[str] = "done"
    text: str


@dataclass(frozen=True)
class TurnError(BaseEvent):
    type: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True)
class TurnCancelled(BaseEvent):
    """A front end stopped the turn (Esc, a session switch) and the history was repaired.
    Only interactive front ends see it: `--print` ends on an interrupt instead."""

    type: ClassVar[str] = "cancelled"


# ------------------------------------------------------------ sub-agents inside a turn
@dataclass(frozen=True)
class AgentStarted(BaseEvent):
    """A sub-agent call began: the parent's tool call `call_id` runs agent `name` as the
    child `child` (its own thread under the session)."""

    type: ClassVar[str] = "agent_start"
    child: str
    call_id: str
    name: str
    inputs: dict[str, Any]


@dataclass(frozen=True)
class AgentFinished(BaseEvent):
    """A sub-agent call ended. `status`: "done", "error" (`error` says why) or "cancelled".
    Its tokens are already in the parent's turn (the child's `usage` events)."""

    type: ClassVar[str] = "agent_end"
    child: str
    call_id: str
    name: str
    status: str
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0  # model calls the child made
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "child": self.child, "call_id": self.call_id,
                               "name": self.name, "status": self.status,
                               "usage": {"input_tokens": self.input_tokens,
                                         "output_tokens": self.output_tokens,
                                         "calls": self.calls}}
        if self.error:
            out["error"] = self.error
        return out


# What a child's turn can tell its parent's front end, each wrapped in a `ChildEvent`.
ChildTurnEvent: TypeAlias = (SkillsInjected | TokenStreamed | ToolCallStarted | ToolFinished
                             | ApprovalDecided | UsageReported)


@dataclass(frozen=True)
class ChildEvent(BaseEvent):
    """One event of a sub-agent's turn, as the parent's turn streams it: in stream-json the
    child's event itself with the child's id and agent name added."""

    type: ClassVar[str] = "child"
    child: str
    agent: str
    event: ChildTurnEvent

    def to_dict(self) -> dict[str, Any]:
        return {**self.event.to_dict(), "child": self.child, "agent": self.agent}


# ------------------------------------------------------------ changes outside a turn
@dataclass(frozen=True)
class SkillsChanged(BaseEvent):
    """The skill rows changed: a grant, a reload, an MCP server that started or failed."""

    type: ClassVar[str] = "skills"


@dataclass(frozen=True)
class SkillsReloaded(BaseEvent):
    """The skill folders were rescanned; `summary` says what changed ("" for nothing)."""

    type: ClassVar[str] = "reloaded"
    summary: str
    trouble: bool = False  # a file broke or cannot be loaded
    forced: bool = False  # asked for (/skill reload), so "no changes" is worth saying


@dataclass(frozen=True)
class AgentsChanged(BaseEvent):
    """The agent rows changed: a grant, or the agent files were read again."""

    type: ClassVar[str] = "agents"


@dataclass(frozen=True)
class StatusChanged(BaseEvent):
    """The session's title, the model, or the turn count changed."""

    type: ClassVar[str] = "status"


@dataclass(frozen=True)
class TotalsChanged(BaseEvent):
    """The token ledger changed (a call completed, a turn was recorded or taken back)."""

    type: ClassVar[str] = "totals"
    session_in: int = 0
    session_out: int = 0


@dataclass(frozen=True)
class MemoryChanged(BaseEvent):
    type: ClassVar[str] = "memory"
    count: int = 0


@dataclass(frozen=True)
class McpFailed(BaseEvent):
    """An MCP server could not start (said once per failure)."""

    type: ClassVar[str] = "mcp_failed"
    skill: str = ""
    error: str = ""


@dataclass(frozen=True)
class Recovered(BaseEvent):
    """A damaged file was moved aside and replaced (said once per file)."""

    type: ClassVar[str] = "recovered"
    message: str = ""


@dataclass(frozen=True)
class SessionBusy(BaseEvent):
    """A turn waits: another process is running one on the same session."""

    type: ClassVar[str] = "session_busy"
    message: str = ""


@dataclass(frozen=True)
class Compacted(BaseEvent):
    """The conversation was compacted (by /compact, or automatically before a turn); `error`
    says why an automatic one could not be done (the turn went on without it)."""

    type: ClassVar[str] = "compacted"
    messages: int = 0  # newly summarised
    tokens_before: int = 0
    tokens_after: int = 0
    auto: bool = False
    error: str = ""


# ------------------------------------------------------------ the closed unions
TurnEvent: TypeAlias = (SessionOpened | SkillsInjected | TokenStreamed | ToolCallStarted
                        | ToolFinished | ApprovalDecided | UsageReported | TurnDone | TurnError
                        | TurnCancelled | AgentStarted | AgentFinished | ChildEvent)
ChangeEvent: TypeAlias = (SessionOpened | SkillsChanged | SkillsReloaded | AgentsChanged
                          | StatusChanged | TotalsChanged | MemoryChanged | McpFailed | Recovered | SessionBusy
                          | Compacted)
Event: TypeAlias = TurnEvent | ChangeEvent


def event_types() -> dict[str, type[BaseEvent]]:
    """Every event of the vocabulary by its `type` (a UI checks it handles them all)."""
    classes: tuple[type[BaseEvent], ...] = get_args(Event)
    return {cls.type: cls for cls in classes}
