"""The @-completion list over the composer: what matches the mention being typed.

It never takes focus (the composer keeps the keyboard: ↑/↓ move here, Tab/Enter choose, Esc
closes); a click chooses too. `shown_query` and `shown_at` say which query the list shows and
when (`bench/mentions.py` reads them to time a keystroke).
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

# (text inserted after "@", what kind of thing it is: "file", "folder", "skill", "agent")
Choice = tuple[str, str]


class MentionList(OptionList):
    DEFAULT_CSS = """
    MentionList {
        display: none;
        height: auto;
        max-height: 10;
        border: round $primary;
        padding: 0 1;
        background: $surface;
    }
    """
    can_focus = False

    class Chosen(Message):
        """A choice was clicked."""

        def __init__(self, value: str) -> None:
            super().__init__()
            self.value = value

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.choices: list[Choice] = []
        self.shown_query: str | None = None
        self.shown_at = 0.0

    @property
    def is_open(self) -> bool:
        return bool(self.display)

    def show(self, query: str, choices: list[Choice], status: str) -> None:
        """Show `choices` for `query` (kept open with a note when nothing matches); the same
        query shown again (more of the tree indexed) keeps the highlighted choice."""
        keep = self.chosen() if query == self.shown_query else None
        self.choices = choices
        options = [Option(_label(value, kind)) for value, kind in choices]
        if not options:
            options = [Option(Text(f"no match for @{query}", style="dim"), disabled=True)]
        if status:
            options.append(Option(Text(status, style="dim italic"), disabled=True))
        self.set_options(options)
        values = [value for value, _ in choices]
        self.highlighted = (values.index(keep) if keep in values else 0) if choices else None
        self.border_title = f"@{query}" if query else "@ files, folders, skills, agents"
        self.display = True
        self.shown_query, self.shown_at = query, time.perf_counter()

    def close(self) -> None:
        self.display = False
        self.shown_query = None

    def move(self, step: int) -> None:
        if self.choices:
            current = self.highlighted or 0
            self.highlighted = (current + step) % len(self.choices)

    def chosen(self) -> str | None:
        """The highlighted choice, as inserted after "@"."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self.choices):
            return None
        return self.choices[index][0]

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.choices):
            self.highlighted = event.option_index
            self.post_message(self.Chosen(self.choices[event.option_index][0]))


def _label(value: str, kind: str) -> Text:
    label = Text(value, style="bold" if kind == "folder" else "")
    if kind in ("skill", "agent"):
        label.append(f"  {kind}", style="dim")
    return label
