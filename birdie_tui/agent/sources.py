"""Prompt sources that live in files the user edits: project instructions (`CLAUDE.md` or
`AGENTS.md` in the working directory) and `$BIRDIE_HOME/system_prompt.md`.

They are read again before every model call — an edit counts on the next call — but only when
the file's size or mtime changed, so a long tool round does not re-read them each time.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_FILES = ("CLAUDE.md", "AGENTS.md")  # upstream Birdie: CLAUDE.md wins when both exist
MAX_CHARS = 100_000  # a runaway file is cut, with a note, rather than flooding the prompt

_cache: dict[str, tuple[tuple[int, int], str]] = {}


def read_source(path: Path) -> str:
    """The file's text ("" when missing, unreadable or not a file); cached by size and mtime."""
    try:
        st = path.stat()
    except OSError:
        return ""
    if not path.is_file():
        return ""
    stamp = (st.st_size, st.st_mtime_ns)
    key = str(path)
    hit = _cache.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(MAX_CHARS + 1)
    except OSError:
        return ""
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n\n[{path.name} cut at {MAX_CHARS:,} characters]"
    text = text.strip()
    _cache[key] = (stamp, text)
    return text


def project_instructions(cwd: str | None = None) -> tuple[str, str] | None:
    """(path, text) of the project instructions in `cwd` (default: the current directory)."""
    folder = Path(cwd or os.getcwd())
    for name in PROJECT_FILES:
        text = read_source(folder / name)
        if text:
            return str(folder / name), text
    return None


def custom_system_prompt(home: Path) -> str:
    """`$BIRDIE_HOME/system_prompt.md`, added after the base prompt ("" when absent)."""
    return read_source(home / "system_prompt.md")
