"""The user's message in the log, shown exactly as typed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


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
        super().__init__(Text(text), id=id, classes=classes)
        self.text = text
        self.border_title = "you"
