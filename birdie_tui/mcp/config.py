"""A skill's `mcp_server` block resolved into what starting the server needs.

Relative paths (command, args, cwd) are taken against the skill's folder, so a skill works
from any working directory; `python` is the interpreter running Birdie. `${VAR}` in env and
header values comes from the environment, so secrets stay out of SKILL.MD.
No MCP import here: resolving a config must stay cheap (it runs before every model call).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from birdie_tui.skills.models import MCPServerConfig, Skill

PYTHON_NAMES = ("python", "python3")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BAD_NAME = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class ServerSpec:
    """Everything that identifies one server; equal specs share one session."""

    skill: str
    transport: str  # stdio | sse | streamable_http
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def target(self) -> str:
        """What the user sees: the command line or the URL (never env or header values)."""
        if self.transport == "stdio":
            return " ".join([Path(self.command or "").name, *self.args])
        return self.url or ""


def safe_name(name: str) -> str:
    """A tool name providers accept (^[A-Za-z0-9_-]{1,64}$); MCP allows dots, slashes..."""
    return (_BAD_NAME.sub("_", name) or "tool")[:64]


def expand(value: str, environ: Mapping[str, str]) -> str:
    """`${NAME}` from the environment; an unknown name becomes empty (like a shell)."""
    return _VAR.sub(lambda m: environ.get(m.group(1), ""), value)


def _path_like(text: str) -> bool:
    return "/" in text or (os.sep != "/" and os.sep in text)


def resolve_command(command: str, folder: Path) -> str:
    """`python` → this interpreter; a path → against the skill folder; a bare name → PATH,
    then the folder holding this interpreter (a venv's tools work without activating it)."""
    if command in PYTHON_NAMES:
        return sys.executable
    expanded = os.path.expanduser(command)
    if _path_like(expanded):
        path = Path(expanded)
        return str(path if path.is_absolute() else (folder / path).resolve())
    found = shutil.which(expanded)
    if found:
        return found
    sibling = Path(sys.executable).parent / expanded
    return str(sibling) if sibling.is_file() and os.access(sibling, os.X_OK) else expanded


def _resolve_arg(arg: str, folder: Path) -> str:
    # Only an argument naming something that exists in the skill folder is a path.
    if not arg or arg.startswith("-") or os.path.isabs(arg):
        return arg
    candidate = folder / arg
    return str(candidate.resolve()) if candidate.exists() else arg


def resolve(skill: Skill, environ: Mapping[str, str] = os.environ) -> ServerSpec:
    cfg: MCPServerConfig = skill.mcp_server or MCPServerConfig()
    folder = skill.folder.resolve()
    transport = "streamable_http" if cfg.transport in ("http", "streamable-http") \
        else cfg.transport
    if transport != "stdio":
        return ServerSpec(
            skill=skill.name, transport=transport, url=expand(cfg.url or "", environ),
            headers=tuple(sorted((k, expand(v, environ)) for k, v in cfg.headers.items())))
    cwd = Path(os.path.expanduser(cfg.cwd)) if cfg.cwd else folder
    return ServerSpec(
        skill=skill.name, transport="stdio",
        command=resolve_command(cfg.command or "", folder),
        args=tuple(_resolve_arg(a, folder) for a in cfg.args),
        env=tuple(sorted((k, expand(v, environ)) for k, v in cfg.env.items())),
        cwd=str(cwd if cwd.is_absolute() else (folder / cwd).resolve()),
    )
