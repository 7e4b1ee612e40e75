"""The skill (and agent) files that failed to parse, so a typo in a SKILL.MD or an AGENT.MD
is visible, not silent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pathlib import PurePath

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from birdie_tui.screen_text import one_line

if TYPE_CHECKING:
    from birdie_tui.service.rows import BrokenAgentFile, BrokenSkillFile

    Broken = BrokenSkillFile | BrokenAgentFile


def short_path(path: str) -> str:
    """The last two path components: enough to find the file, short enough for the sidebar."""
    parts = PurePath(path).parts
    return "/".join(parts[-2:]) if parts else path


def broken_line(item: Broken) -> str:
    where = short_path(item.path)
    if item.line is not None:
        where += f":{item.line}"
    return one_line(f"{where} — {item.message}")


class BrokenFiles(VerticalScroll):
    """A titled list of broken files; hidden while there are none."""

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

    def __init__(self, what: str = "Broken files", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._what = what
        self._title = Static(classes="broken-files--title")
        self._items = Static(classes="broken-files--items")
        self.count = 0

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._items

    def show(self, broken: Sequence[Broken]) -> None:
        self.count = len(broken)
        self.display = bool(broken)
        self._title.update(f"{self._what} ({len(broken)})")
        self._items.update(Content("\n").join(Content(broken_line(b)) for b in broken))
        self.tooltip = "\n".join(f"{b.path}:{b.line or ''} {b.message}" for b in broken) or None
