"""Lines the app adds to the log that are not conversation: command output, info, errors.

Both show text as-is (command output may contain ``[brackets]``), never as markup.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from birdie_tui.screen_text import clean


class Notice(Static):
    """Command output or an info line: muted, no border, so it reads as commentary."""

    DEFAULT_CSS = """
    Notice {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        color: $text-muted;
        &.-pruned { text-style: italic; margin: 0; }
    }
    """

    def __init__(self, text: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Content(clean(text)), markup=False, id=id, classes=classes)
        self.text = text


class ErrorBlock(Static):
    """An error the user must notice: red border with an "error" title."""

    DEFAULT_CSS = """
    ErrorBlock {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border: round $error;
        border-title-color: $error;
        border-title-style: bold;
        color: $text;
    }
    """

    def __init__(self, message: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Content(clean(message)), markup=False, id=id, classes=classes)
        self.message = message
        self.border_title = "error"
