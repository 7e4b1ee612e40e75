"""Live reload: merge a fresh scan with what was loaded before, and say what changed.

A skill whose file is now broken keeps its last good version (an editor mid-save, a typo) and
is reported as broken until the file parses again. Everything else follows the disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .models import LoadResult, Skill, SkillError


def _key(path: str | Path) -> str:
    return os.path.normcase(os.path.abspath(os.fspath(path)))


@dataclass
class ReloadReport:
    added: list[Skill] = field(default_factory=list)
    changed: list[Skill] = field(default_factory=list)  # re-parsed, or a file beside it changed
    removed: list[Skill] = field(default_factory=list)
    broken: dict[str, SkillError] = field(default_factory=dict)  # name -> why; last good kept
    fixed: list[str] = field(default_factory=list)  # broken before, parses again now
    new_errors: list[SkillError] = field(default_factory=list)  # not seen in the last scan

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.broken or self.fixed
                    or self.new_errors)

    def summary(self) -> str:
        """One line for a toast, e.g. "reloaded Shell (3 tools); added notes"."""
        parts = []
        reloaded = [s for s in self.changed if s.name not in self.fixed]  # said once below
        if reloaded:
            parts.append("reloaded " + ", ".join(_with_tools(s) for s in reloaded))
        if self.added:
            parts.append("added " + ", ".join(_with_tools(s) for s in self.added))
        if self.removed:
            parts.append("removed " + ", ".join(s.name for s in self.removed))
        if self.fixed:
            fixed = {s.name: s for s in self.changed}
            parts.append("fixed " + ", ".join(_with_tools(fixed[n]) if n in fixed else n
                                              for n in self.fixed))
        if self.broken:
            parts.append("; ".join(f"{name} is broken, keeping its last good version "
                                   f"({short_error(err)})" for name, err in self.broken.items()))
        others = [e for e in self.new_errors if e not in self.broken.values()]
        if others:
            parts.append(broken_files_note(others))
        return "; ".join(parts) or "no changes"


def broken_files_note(errors: list[SkillError], shown: int = 3) -> str:
    """"2 broken skill files: a/SKILL.MD:3: why; b/SKILL.MD: why": named, so a toast says
    which files to open (the first few; the sidebar lists them all)."""
    named = "; ".join(short_error(e) for e in errors[:shown])
    more = f"; and {len(errors) - shown} more" if len(errors) > shown else ""
    noun = "broken skill file" if len(errors) == 1 else "broken skill files"
    return f"{len(errors)} {noun}: {named}{more}"


def short_error(error: SkillError) -> str:
    """`folder/SKILL.MD:line: message`: enough to find it, short enough for a toast."""
    path = Path(error.path)
    where = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
    return f"{where}:{error.line}: {error.message}" if error.line else f"{where}: {error.message}"


def _with_tools(skill: Skill) -> str:
    count = len(skill.tools)
    return f"{skill.name} ({count} tool{'s' if count != 1 else ''})" if count else skill.name


def merge_reload(
    previous: Iterable[Skill],
    result: LoadResult,
    *,
    previously_broken: Iterable[str] = (),
    previous_errors: Iterable[SkillError] = (),
    touched: Iterable[Path] = (),
) -> tuple[LoadResult, ReloadReport]:
    """Return the result to install (last good versions kept) and what changed.

    `touched` are paths the watcher saw change: a skill whose folder holds one counts as
    changed even if its SKILL file parses the same (its tools.py or server.py changed).
    """
    before = {s.name.lower(): s for s in previous}
    by_file = {_key(s.path): s for s in before.values()}
    report = ReloadReport()
    skills = list(result.skills)
    names = {s.name.lower() for s in skills}
    tools = {t.name for s in skills for t in s.tools}
    for error in result.errors:
        old = by_file.get(_key(error.path))
        if old is None or old.name.lower() in names or any(t.name in tools for t in old.tools):
            continue
        skills.append(old)  # the file is broken now: keep serving its last good version
        names.add(old.name.lower())
        tools.update(t.name for t in old.tools)
        report.broken[old.name] = error
    merged = LoadResult(skills=sorted(skills, key=lambda s: s.name.lower()),
                        errors=list(result.errors))

    touched_dirs = [_key(p) for p in touched]
    for skill in merged.skills:
        old = before.get(skill.name.lower())
        if old is None:
            report.added.append(skill)
        elif skill is not old and (skill != old or _touches(skill, touched_dirs)):
            report.changed.append(skill)
    report.removed = [s for n, s in before.items() if n not in names]
    report.fixed = [n for n in previously_broken if n not in report.broken
                    and n.lower() in names]
    seen = set(previous_errors)
    report.new_errors = [e for e in merged.errors if e not in seen]
    return merged, report


def _touches(skill: Skill, touched: list[str]) -> bool:
    folder = _key(skill.folder) + os.sep
    return any(t.startswith(folder) or t == folder[:-1] for t in touched)
