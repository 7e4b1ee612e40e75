"""The skill data model: what a SKILL.MD / SKILL.md file becomes once parsed.

Plain dataclasses (no pydantic, no LangChain) so that parsing stays fast and importable
from anywhere, including `birdie-tui skills check` and the TUI's first paint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

SkillFormat = Literal["birdie", "agent-skills"]
SkillKind = Literal["tools", "knowledge", "always", "agent-skill", "mcp"]

# Entrypoint schemes a skill may use (checked at load time, run by `entrypoints.run_entrypoint`).
RUNNABLE_SCHEMES = ("bash", "http", "python")
# Known to Birdie but not run here: they load, and fail with a clear error only when called.
UNSUPPORTED_SCHEMES = ("grpc", "container")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
# `## Permissions` keys that are rules for the engine, not capability names.
PERMISSION_RULE_KEYS = ("require_approval",)


@dataclass(frozen=True)
class SkillError:
    """One problem found in one skill file. `line` is 1-based, None when not tied to a line."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "message": self.message}


class SkillParseError(Exception):
    """Raised by the parser for any problem in a skill file; carries every error found."""

    def __init__(self, errors: list[SkillError]):
        self.errors = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))


@dataclass
class MCPServerConfig:
    """Birdie's `mcp_server` frontmatter block. Relative paths are resolved later, against
    the skill's folder, by the MCP manager (so the raw values are kept here)."""

    transport: str = "stdio"  # stdio | sse | streamable_http ("http" is normalised to this)
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "transport": self.transport,
            "command": self.command,
            "args": list(self.args),
            "env": dict(self.env),
            "cwd": self.cwd,
            "url": self.url,
            "headers": dict(self.headers),
        }


@dataclass
class SkillTool:
    """One `### name` block of a `## Tools` section."""

    name: str
    description: str
    entrypoint: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    skill: str = ""  # owning skill's name
    tags: list[str] = field(default_factory=list)  # the owning skill's tags, propagated
    line: int | None = None  # where the block starts in the file
    # Newer Birdie's `timeout:` (seconds, > 0; bounds one execution instead of the engine-wide
    # tool timeout) and `retries:` (re-attempts after a failure), both honoured: see
    # `tools/call_limits.py`.
    timeout_s: float | None = None
    retries: int | None = None
    # birdie-tui's `approval:` key: "ask" (always gated), "never" (never gated), or
    # "outside_workdir" (gated when a path argument leaves the working directory).
    approval: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "entrypoint": self.entrypoint,
            "schema": self.schema,
        }


@dataclass
class Skill:
    name: str
    description: str
    path: Path  # the SKILL.MD / SKILL.md file
    format: SkillFormat = "birdie"
    version: str = "1.0.0"
    tags: list[str] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)
    enabled_by_default: bool = True
    always_inject: bool = False
    tool_tags: list[str] = field(default_factory=list)
    mcp_server: MCPServerConfig | None = None
    tools: list[SkillTool] = field(default_factory=list)
    body: str | None = None
    # Newer Birdie's frontmatter `location`: the identifier the skill catalog shows for loading
    # it (None: the name).
    location: str | None = None
    # `## Permissions`, as Birdie reads it: the capability names the skill declares
    # (`- local_shell` list items; in a mapping, every key that is not a rule and not false).
    permissions: tuple[str, ...] = ()
    # The `key: value` pairs of `## Permissions` (a mapping, or `- key: value` list items).
    # `require_approval` is the rule the engine reads: true, "*", a tool name or a list of them.
    permission_rules: dict[str, Any] = field(default_factory=dict)
    # Agent Skills format extras
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    allowed_tools: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)  # files under scripts/ references/ assets/, relative
    # birdie-tui's frontmatter `env:`: the names of secret-looking variables (an API key, a
    # token) its `bash:` tools may still read; every other secret is kept from them.
    env: list[str] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def kind(self) -> SkillKind:
        if self.format == "agent-skills":
            return "agent-skill"
        if self.mcp_server is not None:
            return "mcp"
        if self.always_inject:
            return "always"
        if self.tools:
            return "tools"
        return "knowledge"

    def requires_approval(self, tool_name: str) -> bool:
        rule = self.permission_rules.get("require_approval", False)
        if isinstance(rule, bool):
            return rule
        if isinstance(rule, str):
            return tool_name == rule or rule in ("*", "all")
        if isinstance(rule, list):
            return tool_name in rule or "*" in rule
        return False

    def to_dict(self) -> dict[str, Any]:
        """The `skills check --json` shape (docs/contracts.md)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "path": str(self.path),
            "description": self.description,
            "version": self.version,
            "tags": list(self.tags),
            "triggers": list(self.triggers),
            "enabled_by_default": self.enabled_by_default,
            "always_inject": self.always_inject,
            "tools": [t.to_dict() for t in self.tools],
            "mcp_server": self.mcp_server.to_dict() if self.mcp_server else None,
        }


@dataclass
class LoadResult:
    """What loading a set of skill folders produced: good skills and every error, side by side."""

    skills: list[Skill] = field(default_factory=list)
    errors: list[SkillError] = field(default_factory=list)
