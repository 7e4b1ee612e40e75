"""A tiny app with the chat widgets as the real app mounts them (ChatLog #chat, Composer #composer)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.composer import Composer


class ChatHarness(App):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []
        self.hints: list[str] = []

    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat")
        yield Composer(id="composer", cursor_blink=False)

    def on_mount(self) -> None:
        self.query_one(Composer).focus()

    @property
    def chat(self) -> ChatLog:
        return self.query_one("#chat", ChatLog)

    @property
    def composer(self) -> Composer:
        return self.query_one("#composer", Composer)

    def on_composer_submitted(self, message: Composer.Submitted) -> None:
        self.submitted.append(message.text)

    def on_composer_hint(self, message: Composer.Hint) -> None:
        self.hints.append(message.text)


def plain(widget) -> str:
    """The text a Static-like widget shows."""
    visual = widget.render()
    return getattr(visual, "plain", str(visual))

