"""Ask for a new session title, prefilled with the current one so a small edit stays small.

Keys typed before the dialog appeared neither replace the title nor submit it (`GuardedModal`).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from birdie_tui.tui.screens.dialog import GuardedModal
from birdie_tui.tui.screens.guarded_input import GuardedInput


class RenameScreen(GuardedModal[str | None]):
    """Dismisses with the stripped new title, or None when cancelled or left blank."""

    DEFAULT_CSS = """
    RenameScreen {
        align: center middle;
        background: $background 60%;
    }
    RenameScreen > #rename-dialog {
        width: 64;
        max-width: 90%;
        height: auto;
        padding: 1 2;
        border: thick $primary 70%;
        background: $surface;
    }
    RenameScreen #rename-title {
        text-style: bold;
        color: $primary;
        margin-bottom: 1;
    }
    RenameScreen #rename-hint {
        color: $text-muted;
        margin-top: 1;
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="rename.cancel")]
    AUTO_FOCUS = "#rename-input"

    def __init__(self, current_title: str) -> None:
        super().__init__()
        self.current_title = current_title

    def compose(self) -> ComposeResult:
        with Vertical(id="rename-dialog"):
            yield Label("Rename session", id="rename-title")
            # The cursor at the end of the old title, nothing selected: a key adds to it
            # rather than replacing the whole title.
            yield GuardedInput(self.current_title, placeholder="session title", id="rename-input",
                               select_on_focus=False)
            yield Static("enter save · esc cancel", id="rename-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
