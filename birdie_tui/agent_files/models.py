"""What an agent file declares: its parameters, the agent, a problem with a file, a load.

Pure data (no LangChain, no engine): the runner (`agent/subagents.py`) and the door read these.
The field names follow Birdie 0.15.1's `AgentDef` (`input_params` / `output_params` are
`inputs` / `outputs` here); the Markdown agents' fields (`system_prompt`, `tools`, `mcp`) are
empty for an AGENT.MD file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from birdie_tui.schedules.models import Trigger

AgentFormat = Literal["AGENT.MD", "markdown"]


@dataclass(frozen=True)
class AgentParam:
    """One `### name` parameter of an `## Input` or `## Output` section."""

    name: str
    type: str = "string"
    description: str = ""
    required: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "description": self.description,
                "required": self.required}


@dataclass(frozen=True)
class AgentDef:
    """One sub-agent: an AGENT.MD file or a Markdown agent file."""

    name: str
    description: str
    prompt: str
    version: str = "1.0.0"
    vendor: str | None = None
    model: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    enabled_by_default: bool = False
    allowed_skills: tuple[str, ...] = ()
    recursion_limit: int = 25
    max_tool_repetitions: int = 3
    inputs: tuple[AgentParam, ...] = ()
    outputs: tuple[AgentParam, ...] = ()
    system_prompt: str = ""  # a Markdown agent's body
    tools: tuple[str, ...] = ()  # a Markdown agent's `tools:` names
    mcp: tuple[dict[str, Any], ...] = ()  # a Markdown agent's `mcp:` entries, shape-checked
    format: AgentFormat = "AGENT.MD"
    path: Path | None = None
    source: str = ""  # "bundled" | "home" | "project" | "dir"
    # Frontmatter keys not listed above, kept as written (later features, other tools' keys).
    extra: Mapping[str, Any] = field(default_factory=dict)
    # `every:`, `cron:`, `watch:` in the frontmatter (agent_files/triggers.py): one per kind.
    triggers: tuple[Trigger, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The agent as JSON (`agents check --json`)."""
        return {
            "name": self.name, "description": self.description, "format": self.format,
            "source": self.source, "path": str(self.path) if self.path else None,
            "version": self.version, "vendor": self.vendor, "model": self.model,
            "temperature": self.temperature, "max_tokens": self.max_tokens,
            "enabled_by_default": self.enabled_by_default,
            "allowed_skills": list(self.allowed_skills), "tools": list(self.tools),
            "mcp": _plain([dict(m) for m in self.mcp]),
            "recursion_limit": self.recursion_limit,
            "max_tool_repetitions": self.max_tool_repetitions,
            "inputs": [p.to_dict() for p in self.inputs],
            "outputs": [p.to_dict() for p in self.outputs],
            "prompt": self.prompt, "system_prompt": self.system_prompt,
            "extra": _plain(dict(self.extra)),
            "triggers": [_plain(t.to_dict()) for t in self.triggers],
        }


def _plain(value: Any) -> Any:
    """`value` as plain JSON: YAML's dates and other values a file may hold become text."""
    return json.loads(json.dumps(value, default=str))


@dataclass(frozen=True)
class AgentProblem:
    """One problem with one agent file; `line` is 1-based, None when not tied to a line."""

    path: Path
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "line": self.line, "message": self.message}


class AgentFileError(Exception):
    """An agent file that cannot be loaded; `problem` says where and why."""

    def __init__(self, problem: AgentProblem):
        super().__init__(str(problem))
        self.problem = problem


@dataclass
class AgentLoad:
    """What a scan of the agent folders found: agents, problems, and notes such as shadowing."""

    agents: list[AgentDef] = field(default_factory=list)
    problems: list[AgentProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
