"""What an agent file declares (stand-in until the format package lands)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal


@dataclass(frozen=True)
class AgentParam:
    name: str
    type: str = "string"
    description: str = ""
    required: bool = True


@dataclass(frozen=True)
class AgentDef:
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
    system_prompt: str = ""
    tools: tuple[str, ...] = ()
    mcp: tuple[dict[str, Any], ...] = ()
    format: Literal["AGENT.MD", "markdown"] = "AGENT.MD"
    path: Path | None = None
    source: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentProblem:
    path: Path
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else \
            f"{self.path}: {self.message}"


@dataclass
class AgentLoad:
    agents: list[AgentDef] = field(default_factory=list)
    problems: list[AgentProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
