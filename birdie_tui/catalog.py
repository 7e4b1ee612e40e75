"""The catalog's rows — skills, broken skill files, sub-agents and their runs, MCP servers,
tools, the model, memory notes, settings — and the builders that make them from the skill
registry, the agent files and the MCP manager's state. A leaf shared by the front door (`service.rows` re-exports the rows) and
the LangGraph server (`server.catalog`), which must not import the door."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from birdie_tui.agent_files.models import AgentDef, AgentParam

__all__ = ["AgentRow", "AgentRunRow", "BrokenAgentFile", "BrokenSkillFile", "McpRow", "MemoryNote",
           "ModelFacts", "SettingsRow", "ShellRun", "SkillRow", "ToolRow", "agent_row",
           "broken_files", "mcp_row", "run_row", "skill_rows"]


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
    server: str | None = None  # MCP skills: the server's state, e.g. "running · 2 tools"
    mcp: bool = False  # its tools come from an MCP server


@dataclass(frozen=True)
class BrokenSkillFile:
    path: str
    line: int | None
    message: str


@dataclass(frozen=True)
class AgentRow:
    """A sub-agent (an AGENT.MD or Markdown agent file) and its state for this session."""

    name: str
    description: str
    enabled: bool  # for this session
    enabled_by_default: bool = False
    format: str = "AGENT.MD"  # AGENT.MD | markdown
    source: str = ""  # bundled | home | project | dir
    path: str = ""
    inputs: tuple[str, ...] = ()  # "text (string, required)"
    outputs: tuple[str, ...] = ()
    model: str = ""  # "" : the session's model
    skills: tuple[str, ...] = ()  # the skills it may use


@dataclass(frozen=True)
class AgentRunRow:
    """One sub-agent call of a session: its child thread, the agent, how it ended."""

    child: str
    agent: str
    turn: int
    status: str  # done | error
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0


@dataclass(frozen=True)
class ShellRun:
    """A command the user typed (`!command`) and what it gave."""

    command: str
    output: str
    error: bool
    refused: str = ""  # why it did not run ("" : it ran)


@dataclass(frozen=True)
class BrokenAgentFile:
    path: str
    line: int | None
    message: str


@dataclass(frozen=True)
class McpRow:
    skill: str
    transport: str
    target: str
    state: str  # not started | starting | running | failed | exited
    enabled: bool
    tools: tuple[str, ...] = ()
    error: str | None = None
    restarts: int = 0


@dataclass(frozen=True)
class ModelFacts:
    label: str
    context_window: int | None
    price: tuple[float, float, float] | None  # USD per million: input, output, cached


@dataclass(frozen=True)
class MemoryNote:
    id: str
    content: str


@dataclass(frozen=True)
class ToolRow:
    name: str
    description: str


@dataclass(frozen=True)
class SettingsRow:
    theme: str = "birdie-dark"
    tool_output: str = "full"  # full | short | off
    keymap: tuple[tuple[str, str], ...] = ()
    notify: bool = True  # bell + OSC 9 when a turn ends or an approval waits, unfocused
    agent_output: str = "short"  # a sub-agent's work in the chat: full | short | off


def skill_rows(engine: Any) -> list[SkillRow]:
    """Every loaded skill with its state for this session, and why it is in trouble, if it is
    (a file whose reload broke, an MCP server that failed)."""
    servers = {s.skill: s for s in engine.mcp_status()}
    rows = []
    for skill in engine.skills():
        server = servers.get(skill.name)
        # An MCP skill's tools are known once its server has listed them.
        tools = tuple(t.name for t in skill.tools) + (server.tools if server else ())
        failed = server.error if server is not None and server.state == "failed" else None
        rows.append(SkillRow(
            name=skill.name,
            kind=skill.kind,
            description=skill.description,
            tool_count=len(tools),
            tags=tuple(skill.tags),
            triggers=tuple(skill.triggers),
            tool_names=tools,
            enabled=engine.is_enabled(skill),
            enabled_by_default=skill.enabled_by_default,
            error=_broken_line(engine.broken_skills.get(skill.name))
            or (f"MCP server failed: {failed}" if failed else None),
            server=_server_line(server) if server is not None else None,
            mcp=skill.mcp_server is not None,
        ))
    return rows

def _broken_line(error: Any) -> str | None:
    if error is None:
        return None
    from birdie_tui.skills.reload import short_error

    return f"file broken, last good version in use — {short_error(error)}"

def _server_line(status: Any) -> str:
    state = {"not started": "not started (starts on first use)",
             "failed": "failed"}.get(status.state, status.describe())
    return f"{status.transport} · {state}"

def mcp_row(status: Any) -> McpRow:
    """A server's row; its target (a URL may carry credentials) is scrubbed."""
    from birdie_tui.secrets import scrub

    return McpRow(skill=status.skill, transport=status.transport, target=scrub(status.target),
                  state=status.state, enabled=status.enabled, tools=tuple(status.tools),
                  error=status.error, restarts=status.restarts)

def broken_files(engine: Any) -> list[BrokenSkillFile]:
    return [BrokenSkillFile(e.path, e.line, e.message) for e in engine.registry.errors]


def agent_row(agent: AgentDef, enabled: bool) -> AgentRow:
    """An agent file's row, `enabled` for the session or thread it is shown for."""
    return AgentRow(
        name=agent.name, description=agent.description, enabled=enabled,
        enabled_by_default=agent.enabled_by_default, format=agent.format, source=agent.source,
        path=str(agent.path or ""), inputs=tuple(_param(p) for p in agent.inputs),
        outputs=tuple(_param(p) for p in agent.outputs),
        model=agent.model if agent.model not in (None, "inherit") else "",
        skills=(*agent.allowed_skills, *agent.tools))


def _param(param: AgentParam) -> str:
    return f"{param.name} ({param.type}{', required' if param.required else ''})"


def run_row(run: dict[str, Any]) -> AgentRunRow:
    """A sub-agent call as the counts record it (`agent_runs`, see `agent.ledger`)."""

    def count(key: str) -> int:
        value = run.get(key, 0)
        return value if isinstance(value, int) and value > 0 else 0

    return AgentRunRow(child=str(run.get("child", "")), agent=str(run.get("agent", "")),
                       turn=count("turn"), status=str(run.get("status", "done")),
                       input_tokens=count("input"), output_tokens=count("output"),
                       calls=count("calls"))
