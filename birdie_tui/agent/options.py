"""What an Engine is configured with, its user-facing error, and small helpers it needs at
construction (kept apart so engine.py stays readable; all re-exported by `agent.engine`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills.bundled import bundled_skills_dir
from birdie_tui.store import BirdiePaths

__all__ = ["EngineError", "EngineOptions", "default_skill_dirs", "mcp_start_timeout"]


class EngineError(Exception):
    """A user-facing problem (unknown session, unknown skill...): its text is the message."""


def default_skill_dirs(paths: BirdiePaths, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """`BIRDIE_SKILLS_DIR` if set, else the bundled skills plus `$BIRDIE_HOME/skills` (when it
    exists: a user with no skills of their own has done nothing wrong)."""
    override = environ.get("BIRDIE_SKILLS_DIR", "")
    if override.strip():
        return [Path(p).expanduser() for p in override.split(os.pathsep) if p.strip()]
    user_dir = paths.user_skills_dir
    return [bundled_skills_dir(), *([user_dir] if user_dir.is_dir() else [])]


def mcp_start_timeout(options: EngineOptions) -> float:
    if options.mcp_start_timeout is not None:
        return options.mcp_start_timeout
    try:
        return float(options.environ.get("BIRDIE_MCP_START_TIMEOUT", "") or 15.0)
    except ValueError:
        return 15.0


@dataclass
class EngineOptions:
    user: str | None = None
    skills_dirs: list[Path] | None = None  # None: default_skill_dirs()
    agents_dirs: list[Path] | None = None  # --agents-dir: searched before the default folders
    provider: ProviderConfig | None = None  # None: resolved from the environment
    config_file: Path | None = None
    paths: BirdiePaths | None = None  # None: from BIRDIE_HOME
    max_tool_calls: int = 40  # per turn (the loop guard); 0: no limit (/tool cap off)
    tool_timeout: float = 120.0
    mcp_start_timeout: float | None = None  # None: $BIRDIE_MCP_START_TIMEOUT, else 15 s
    # postgresql://... keeps sessions, memory and checkpoints there (`store.database`); None:
    # $BIRDIE_DATABASE_URL, then settings.json's database_url, else the embedded store.
    database_url: str | None = None
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
