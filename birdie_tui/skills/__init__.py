"""Skills: parsing SKILL.MD / SKILL.md, loading folders, registry, policy, entrypoints.

Import-light on purpose: the LangChain adapter lives in `birdie_tui.skills.adapter` and must be
imported explicitly.
"""

from .bundled import bundled_skills_dir, bundled_themes_dir
from .entrypoints import MAX_TOOL_OUTPUT, ToolOutcome, render_command, run_entrypoint, truncate_output
from .loader import load_skills, skill_files
from .models import LoadResult, MCPServerConfig, Skill, SkillError, SkillParseError, SkillTool
from .parser import parse_skill_file, parse_skill_text
from .policy import SkillPolicy
from .registry import SkillRegistry
from .resources import describe_skill_for_loading, read_skill_file

__all__ = [
    "MAX_TOOL_OUTPUT", "LoadResult", "MCPServerConfig", "Skill", "SkillError", "SkillParseError",
    "SkillPolicy", "SkillRegistry", "SkillTool", "ToolOutcome", "bundled_skills_dir",
    "bundled_themes_dir", "describe_skill_for_loading", "load_skills", "parse_skill_file",
    "parse_skill_text", "read_skill_file", "render_command", "run_entrypoint", "skill_files",
    "truncate_output",
]
