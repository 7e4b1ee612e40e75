"""Discovering and loading skill folders: one bad file never hides the others.

`load_skills` scans the immediate subdirectories of each skills directory (sorted by name),
parses each `SKILL.MD` (Birdie) or `SKILL.md` (Agent Skills), and rejects duplicates: a later
skill whose name (case-insensitive) or one of whose tool names is already taken is reported
as an error and not loaded.

Live reload scans everything again on every change, so a parsed `SKILL.MD` is remembered by its
file's stat (size, mtime, ctime, inode): a 10,000-line skill file costs its parse (about a
second for 1,000 tool blocks) once, not on every save of any other skill. A file changed in
the last `RACY_SECONDS` is never remembered (two writes within one timestamp tick look the
same), and each load gets its own copy (nothing shares a Skill with the memory).
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Iterable
from pathlib import Path

from .models import LoadResult, Skill, SkillError, SkillParseError
from .parser import AGENT_SKILLS_FILE, BIRDIE_FILE, parse_skill_file

RACY_SECONDS = 2.0
_MEMORY_MAX = 512  # files
_parsed: dict[str, tuple[tuple[int, ...], Skill]] = {}  # path -> (stat signature, skill)


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
                skill = _parse(files[0])
            except SkillParseError as exc:
                result.errors.extend(exc.errors)
                continue
            if _accept(skill, names, tools, result.errors):
                result.skills.append(skill)
    return result


def _parse(path: Path) -> Skill:
    """`parse_skill_file`, remembered while the file is unchanged (Birdie files only: an Agent
    Skill also lists the files beside it, which its own stat does not cover)."""
    if path.name != BIRDIE_FILE:
        return parse_skill_file(path)
    try:
        st = os.stat(path)
    except OSError:
        return parse_skill_file(path)  # which says what is wrong with it
    signature = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    key = str(path)
    hit = _parsed.get(key)
    if hit is not None and hit[0] == signature:
        return copy.deepcopy(hit[1])
    skill = parse_skill_file(path)
    _parsed.pop(key, None)
    if time.time() - max(st.st_mtime, st.st_ctime) >= RACY_SECONDS:
        if len(_parsed) >= _MEMORY_MAX:
            _parsed.pop(next(iter(_parsed)))
        _parsed[key] = (signature, copy.deepcopy(skill))
    return skill


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
