"""The user's message in the log, shown exactly as typed: the whole of it, or for a big one
(a 5 MB paste) its first lines and a note of how much more went to the model.

Rendering is the cost: a Static wraps its whole text on every layout (measured: a 2 MB message
took ~10 s to lay out). The preview (`preview.head`) is cut without splitting the whole text;
`text` keeps the message itself (a reference, not a copy).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Static

from birdie_tui.screen_text import clean
from birdie_tui.tui.copying import CopyText
from birdie_tui.tui.widgets.chat.copy_affordance import LABEL, hovered, on_label
from birdie_tui.tui.widgets.preview import head

PREVIEW_CHARS = 4_000
PREVIEW_LINES = 40


def preview(text: str) -> tuple[str, str]:
    """The start of `text` (at most PREVIEW_LINES lines and PREVIEW_CHARS characters) and a
    note of what is not shown ("" when nothing is cut)."""
    shown, rest = head(text, PREVIEW_LINES, PREVIEW_CHARS)
    if not rest:
        return shown, ""
    return shown, f"… {rest} more — sent to Birdie whole; /export shows it in full"


class UserMessage(Static):
    """User text as a rich `Text`, so `[brackets]` and `*stars*` are never interpreted."""

    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0 1 0;
        padding: 0 1;
        border: none;
        border-top: blank;
        border-left: wide $primary;
        border-title-color: $primary;
        border-title-style: bold;
        border-title-align: left;
        background: $primary 8%;
    }
    """

    def __init__(self, text: str, *, id: str | None = None, classes: str | None = None) -> None:
        shown, note = preview(text)
        content = Text(clean(shown))  # a pasted file's escape sequences stay inert
        if note:
            content.append("\n" + note, style="italic")
        super().__init__(content, id=id, classes=classes)
        self.text = text
        self.truncated = bool(note)
        self.border_title = "you"

    def _title(self) -> None:
        """"you" on the left of the top edge; "copy" on its right while the mouse is over."""
        if not self.has_class("-hovered"):
            self.border_title = "you"
            return
        gap = self.size.width - len("you") - len(LABEL) - 2  # a corner each side
        self.border_title = f"you{' ' * max(gap, 1)}{LABEL}"

    def on_enter(self, event: events.Enter) -> None:
        hovered(self, event)
        self._title()

    def on_leave(self, event: events.Leave) -> None:
        hovered(self, event)
        self._title()

    def on_resize(self) -> None:
        self._title()

    def on_click(self, event: events.Click) -> None:
        if on_label(self, event):
            event.stop()
            self.post_message(CopyText(self.text, "your message"))
