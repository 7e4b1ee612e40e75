"""Where the skills and themes shipped with birdie-tui live (wheel or source checkout)."""

from __future__ import annotations

from pathlib import Path

import birdie_tui


def _bundled(kind: str) -> Path:
    pkg = Path(birdie_tui.__file__).resolve().parent
    installed = pkg / "_bundled" / kind
    if installed.is_dir():
        return installed
    return pkg.parent / kind


def bundled_skills_dir() -> Path:
    """The bundled skills folder: `birdie_tui/_bundled/skills` in a wheel, else `<repo>/skills`."""
    return _bundled("skills")


def bundled_agents_dir() -> Path:
    """The bundled sub-agents folder: `birdie_tui/_bundled/agents` in a wheel, else
    `<repo>/agents`."""
    return _bundled("agents")


def bundled_themes_dir() -> Path:
    """The bundled themes folder: `birdie_tui/_bundled/themes` in a wheel, else `<repo>/themes`."""
    return _bundled("themes")
