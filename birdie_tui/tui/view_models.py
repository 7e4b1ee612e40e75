"""Plain rows the widgets render. The app builds them from the engine; widgets never see it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SkillRow:
    name: str
    kind: str  # tools | knowledge | always | agent-skill | mcp
    description: str
    tool_count: int
    tags: tuple[str, ...] = ()
    triggers: tuple[str, ...] = ()
    tool_names: tuple[str, ...] = ()
    enabled: bool = True  # for this session, after policy
    enabled_by_default: bool = True
    error: str | None = None  # e.g. a broken reload or a dead MCP server: "file:line: message"
    server: str | None = None  # MCP skills: the server's state, e.g. "running · 2 tool(s)"


@dataclass(frozen=True)
class BrokenSkillFile:
    path: str
    line: int | None
    message: str


@dataclass(frozen=True)
class SessionRow:
    id: str
    title: str  # a name the user gave, else the first user message, else "(untitled)"
    updated_at: str  # ISO timestamp
    turns: int
    input_tokens: int
    output_tokens: int
    current: bool = False


@dataclass(frozen=True)
class InjectionRow:
    name: str
    reason: str  # trigger:<phrase> | always_inject | loaded
    tokens: int
    body: str


@dataclass
class InjectionView:
    """What the last model call's system prompt carried."""

    catalog_tokens: int = 0
    prompt_tokens: int = 0
    skills: list[InjectionRow] = field(default_factory=list)
    memory: list[str] = field(default_factory=list)


@dataclass
class TokenView:
    context_tokens: int = 0  # input tokens of the latest model call
    context_window: int | None = None
    calls: list[tuple[int, int]] = field(default_factory=list)  # (in, out) per call, last turn
    session_in: int = 0
    session_out: int = 0
    per_turn: list[int] = field(default_factory=list)  # total tokens per turn, oldest first
    cost_usd: float | None = None  # None: price unknown
