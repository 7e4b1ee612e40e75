"""Discovering and loading skill folders: one bad file never hides the others.

`load_skills` scans the immediate subdirectories of each skills directory (sorted by name),
parses each `SKILL.MD` (Birdie) or `SKILL.md` (Agent Skills), and rejects duplicates: a later
skill whose name (case-insensitive) or one of whose tool names is already taken is reported
as an error and not loaded.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .models import LoadResult, Skill, SkillError, SkillParseError
from .parser import AGENT_SKILLS_FILE, BIRDIE_FILE, parse_skill_file


def _subdirs(root: Path) -> list[Path]:
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [root / n for n in names if not n.startswith((".", "__")) and (root / n).is_dir()]


def _files_in(folder: Path) -> list[Path]:
    """The skill file names actually present (directory listing, so case is exact)."""
    try:
        names = set(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in (BIRDIE_FILE, AGENT_SKILLS_FILE) if n in names]


def load_skills(dirs: Iterable[Path]) -> LoadResult:
    """Load every skill under `dirs`; errors are collected, never raised."""
    result = LoadResult()
    names: dict[str, Skill] = {}
    tools: dict[str, Skill] = {}
    for d in dirs:
        root = Path(d).expanduser()
        if not root.is_dir():
            why = "is not a directory" if root.exists() else "does not exist"
            result.errors.append(SkillError(str(root), None, f"skills directory {why}"))
            continue
        for sub in _subdirs(root):
            files = _files_in(sub)
            if not files:
                continue
            if len(files) == 2:
                result.errors.append(SkillError(
                    str(files[1]), None, f"both {BIRDIE_FILE} and {AGENT_SKILLS_FILE} present; loading {BIRDIE_FILE}"))
            try:
                skill = parse_skill_file(files[0])
            except SkillParseError as exc:
                result.errors.extend(exc.errors)
                continue
            if _accept(skill, names, tools, result.errors):
                result.skills.append(skill)
    return result


def _accept(skill: Skill, names: dict[str, Skill], tools: dict[str, Skill], errors: list[SkillError]) -> bool:
    first = names.get(skill.name.lower())
    if first is not None:
        errors.append(SkillError(str(skill.path), 1, f"duplicate skill name '{skill.name}' (already loaded from {first.path})"))
        return False
    clashes = [t for t in skill.tools if t.name in tools]
    if clashes:
        for t in clashes:
            owner = tools[t.name]
            errors.append(SkillError(str(skill.path), t.line, f"tool '{t.name}' is already defined by skill "
                                     f"'{owner.name}' ({owner.path}); skill '{skill.name}' not loaded"))
        return False
    names[skill.name.lower()] = skill
    for t in skill.tools:
        tools[t.name] = skill
    return True
