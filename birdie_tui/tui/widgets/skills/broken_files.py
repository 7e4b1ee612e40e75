"""The skill files that failed to parse, so a typo in a SKILL.MD is visible, not silent."""

from __future__ import annotations

from typing import Any

from pathlib import PurePath

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from birdie_tui.screen_text import one_line
from birdie_tui.service.rows import BrokenSkillFile


def short_path(path: str) -> str:
    """The last two path components: enough to find the file, short enough for the sidebar."""
    parts = PurePath(path).parts
    return "/".join(parts[-2:]) if parts else path


def broken_line(item: BrokenSkillFile) -> str:
    where = short_path(item.path)
    if item.line is not None:
        where += f":{item.line}"
    return one_line(f"{where} — {item.message}")


class BrokenFiles(VerticalScroll):
    """A titled list of broken skill files; hidden while there are none."""

    DEFAULT_CSS = """
    BrokenFiles {
        height: auto;
        max-height: 12;
        display: none;
        border-top: hkey $error;
        padding: 0 1;
        & > .broken-files--title { color: $error; text-style: bold; }
        & > .broken-files--items { color: $foreground; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._title = Static(classes="broken-files--title")
        self._items = Static(classes="broken-files--items")
        self.count = 0

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._items

    def show(self, broken: list[BrokenSkillFile]) -> None:
        self.count = len(broken)
        self.display = bool(broken)
        self._title.update(f"Broken files ({len(broken)})")
        self._items.update(Content("\n").join(Content(broken_line(b)) for b in broken))
        self.tooltip = "\n".join(f"{b.path}:{b.line or ''} {b.message}" for b in broken) or None
