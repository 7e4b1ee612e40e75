"""Skills: the SKILL.MD / SKILL.md format (parsing, sections, models, schemas), loading
folders, the registry, policy, live reload and the watcher, scaffolding, bundled skills.

What runs a skill's tools (entrypoints, bash templates, the reaper, the LangChain adapter) is
`birdie_tui.tools`, which imports this package; this package never imports it.

Names are imported on first use: the TUI asks for `bundled_themes_dir` before its first paint
and must not pay for PyYAML then.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "bundled_skills_dir": "bundled", "bundled_themes_dir": "bundled",
    "load_skills": "loader",
    "LoadResult": "models", "MCPServerConfig": "models", "Skill": "models",
    "SkillError": "models", "SkillParseError": "models", "SkillTool": "models",
    "parse_skill_file": "parser", "parse_skill_text": "parser",
    "SkillPolicy": "policy", "SkillRegistry": "registry",
    "read_skill_file": "resources",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
