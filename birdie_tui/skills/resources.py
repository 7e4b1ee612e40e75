"""Reading files that ship inside a skill folder (Agent Skills progressive disclosure)."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath

from birdie_tui.regular_files import read_regular

from .models import Skill

MAX_RESOURCE_CHARS = 32_000


def read_skill_file(skill: Skill, rel_path: str, max_chars: int = MAX_RESOURCE_CHARS) -> str:
    """Text of `rel_path` inside the skill folder; ValueError for anything outside or unreadable."""
    rel = (rel_path or "").strip()
    if not rel:
        raise ValueError("no file path given")
    if "\x00" in rel or PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive:
        raise ValueError(f"'{rel_path}' must be a path relative to the skill folder")
    root = skill.folder.resolve()
    target = (root / rel).resolve()
    if not target.is_relative_to(root):
        raise ValueError(f"'{rel_path}' is outside the skill folder of '{skill.name}'")
    if target.is_dir():
        raise ValueError(f"'{rel_path}' is a directory, not a file")
    if not target.exists():
        raise ValueError(f"'{rel_path}' does not exist in skill '{skill.name}'")
    try:
        # Regular files only: a FIFO would block forever, /dev/zero never end.
        text = read_regular(target).decode("utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"cannot read '{rel_path}': {exc.strerror or exc}") from None
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n… [truncated: {len(text) - max_chars} characters dropped]"
    return text

