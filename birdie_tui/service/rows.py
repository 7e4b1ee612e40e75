"""The plain, frozen rows and snapshots that cross the front door (`birdie_tui.service`).

Whatever the UI shows is one of these: built by the service from the engine's state, never a
live engine object. Cheap to import (dataclasses only), so widgets can name them at first
paint; the rows that other modules own load when first asked for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

# The modes' one spelling, for front ends (which import nothing of the core but the door).
from birdie_tui.modes import APPROVAL_MODES, LOADING_MODES, ApprovalMode, LoadingMode

if TYPE_CHECKING:
    from birdie_tui.agent.approvals import ApprovalAnswer, ApprovalRequest
    # /cost's rows are the ledger's (both doors report through `agent.ledger.cost_report`).
    from birdie_tui.agent.ledger import AgentSpend, CallUsage, CostReport, TokenLedger, TurnCost
    from birdie_tui.agent.provenance import CallContext, ContextChange, Segment, compare
    # The catalog's rows live in a leaf the server shares (it does not import the door).
    from birdie_tui.catalog import (AgentRow, AgentRunRow, BrokenAgentFile, BrokenSkillFile,
                                    McpRow, MemoryNote, ModelFacts, SettingsRow, ShellRun,
                                    SkillRow, ToolRow)
    from birdie_tui.schedules.models import RunRecord, Trigger

# The rows other modules own, loaded when first asked for: a front end's first frame names
# none of them, and together they are ~30 ms of dataclasses and their imports. They resolve
# through `__getattr__`, not this module's globals (`typing.get_type_hints` on a row here that
# names one needs it asked for first).
_ELSEWHERE = {
    "birdie_tui.agent.approvals": ("ApprovalAnswer", "ApprovalRequest"),
    "birdie_tui.agent.ledger": ("AgentSpend", "CallUsage", "CostReport", "TokenLedger", "TurnCost"),
    "birdie_tui.agent.provenance": ("CallContext", "ContextChange", "Segment", "compare"),
    "birdie_tui.catalog": ("AgentRow", "AgentRunRow", "BrokenAgentFile", "BrokenSkillFile",
                           "McpRow", "MemoryNote", "ModelFacts", "SettingsRow", "ShellRun",
                           "SkillRow", "ToolRow"),
    "birdie_tui.schedules.models": ("RunRecord", "Trigger"),
}
_OWNER = {name: module for module, names in _ELSEWHERE.items() for name in names}


def __getattr__(name: str) -> Any:  # PEP 562: only for the names of `_ELSEWHERE`
    if name not in _OWNER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_OWNER[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "APPROVAL_MODES", "LOADING_MODES", "ApprovalMode", "LoadingMode",
    "AgentRow", "AgentRunRow", "AgentSpend", "ShellRun", "ApprovalAnswer", "ApprovalRequest", "BrokenAgentFile",
    "BrokenSkillFile", "CallContext", "CallUsage",
    "CompactionRow", "ContextChange", "CostReport", "TurnCost",
    "InjectionRow", "Segment", "compare", "InjectionView", "McpRow", "McpServerSpec",
    "MemoryNote",
    "ModelChoice", "ModelFacts", "SessionRow", "SettingsRow", "SkillRow", "Started", "Status",
    "TokenLedger", "ToolCallItem", "ToolRow", "TranscriptItem",
    "RunRecord", "Trigger", "TriggerRow",
]


@dataclass(frozen=True)
class SessionRow:
    id: str
    title: str  # a name the user gave, else the first user message, else "(untitled)"
    updated_at: str  # ISO timestamp
    turns: int
    input_tokens: int
    output_tokens: int
    current: bool = False
    created_at: str = ""
    # Who last wrote it, "user@host", in a shared store (Postgres, a server); "" when local.
    written_by: str = ""
    # "running" / "waiting for approval" while a turn of this front end runs in it (on a
    # server: any client's run, as the server tells it); "" idle.
    busy: str = ""


@dataclass(frozen=True)
class InjectionRow:
    name: str
    reason: str  # trigger:<phrase> | always_inject | loaded
    tokens: int
    body: str


@dataclass(frozen=True)
class InjectionView:
    """What the last model call's system prompt carried."""

    catalog_tokens: int = 0
    prompt_tokens: int = 0
    skills: tuple[InjectionRow, ...] = ()
    memory: tuple[str, ...] = ()
    context: CallContext | None = None  # the call's provenance (every segment), when known

    @classmethod
    def of(cls, report: Any) -> InjectionView:
        """From an `injected` event (or the engine's prompt report: the same fields)."""
        return cls(catalog_tokens=report.catalog_tokens, prompt_tokens=report.prompt_tokens,
                   skills=tuple(InjectionRow(s.name, s.reason, s.tokens, s.body)
                                for s in report.skills),
                   memory=tuple(report.memory), context=getattr(report, "context", None))


@dataclass(frozen=True)
class ToolCallItem:
    id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SessionPulse:
    """The open session as other processes left it, polled while nothing runs in it."""

    changed: bool = False  # another process added to its history: show it again
    elsewhere: str = ""  # who else has it open ("process 1234", "alice@laptop pid 7"), or ""


@dataclass(frozen=True)
class TranscriptItem:
    """One message of a session's history, as the chat replays it."""

    role: str  # user | assistant | tool | system
    content: str
    tool_calls: tuple[ToolCallItem, ...] = ()
    tool_call_id: str = ""  # role tool: the call it answers
    name: str = ""  # role tool: the tool
    error: bool = False  # role tool: it failed
    # role tool, a sub-agent call's answer: the agent, its child thread, the child's model
    # calls and tokens (what its block's header shows)
    agent: str = ""
    child: str = ""
    agent_calls: int = 0
    agent_tokens: int = 0


@dataclass(frozen=True)
class Status:
    """The open session and the model, as the status bar and /info show them."""

    model: str  # "vendor · model"
    vendor: str
    session_id: str
    title: str | None
    saved: bool  # False until the first message puts the session on disk
    turns: int
    created_at: str
    user: str
    data_dir: str
    skill_dirs: tuple[str, ...]
    logs_dir: str
    approval_mode: str = "ask"  # ask | auto | read-only


@dataclass(frozen=True)
class ModelChoice:
    vendor: str
    models: tuple[str, ...]
    current: bool  # the vendor in use
    current_model: str | None = None


@dataclass(frozen=True)
class Started:
    """A started service: the session it opened and what could not be honoured on the way."""

    session_id: str
    new: bool
    problems: tuple[str, ...] = ()  # e.g. an unknown --session-id: said, then a new one opened
    warnings: tuple[str, ...] = ()  # settings and start-up warnings (shown as toasts)


@dataclass(frozen=True)
class CompactionRow:
    """What `/compact` did."""

    messages: int  # newly summarised
    summarised: int  # covered by the summary in all (they stay in the chat)
    kept: int  # sent verbatim after it
    tokens_before: int
    tokens_after: int
    summary: str


# -- /history, /skill new (/cost's rows are the ledger's) --
@dataclass(frozen=True)
class UserTurn:
    """One of your messages in the open session (`/history`)."""

    turn: int
    text: str


@dataclass(frozen=True)
class NewSkill:
    """What `/skill new` wrote."""

    name: str
    path: str  # its SKILL.MD
    folder_added: bool  # its skills folder was not loaded by this session before; now it is


# -- what a client gives a session --
@dataclass(frozen=True)
class McpServerSpec:
    """An MCP server a client gives the shown session (an editor's `mcpServers` in ACP): its
    tools join that session's, as `acp:<name>` in the MCP rows. stdio needs `command`; http
    (streamable HTTP) and sse need `url`."""

    name: str
    transport: Literal["stdio", "http", "sse"] = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None  # relative command and arguments: against it (else where tools run)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TriggerRow:
    """One trigger the agent folders and settings declare: when it fires next, its last run."""

    trigger: Trigger
    next_fire: datetime | None = None  # None: a watch trigger, or none to come
    last: RunRecord | None = None
