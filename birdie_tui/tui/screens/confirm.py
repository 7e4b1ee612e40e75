"""Ask before an action that loses data (deleting a session); keeping is always the default.

Nothing a user was already typing can answer it: there is no letter shortcut, Enter and Esc
keep, keys typed before the dialog appeared are dropped (`GuardedModal`), and the destructive
button is reached only on purpose (Tab or an arrow key, then Enter; or a click).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from birdie_tui.screen_text import clean
from birdie_tui.tui.screens.dialog import GuardedModal

HINT = "enter keep · tab then enter to {action} · esc keep"


class ConfirmScreen(GuardedModal[bool]):
    """Dismisses with True only when the destructive button is pressed; False otherwise."""

    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
        background: $background 60%;
    }
    ConfirmScreen > #confirm-dialog {
        width: 60;
        max-width: 90%;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: thick $warning 70%;
        background: $surface;
    }
    ConfirmScreen #confirm-message {
        width: 1fr;
        margin-bottom: 1;
        color: $foreground;
    }
    ConfirmScreen #confirm-buttons {
        height: auto;
        align-horizontal: right;
    }
    ConfirmScreen Button {
        margin-left: 2;
    }
    ConfirmScreen #confirm-hint {
        width: 1fr;
        margin-top: 1;
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("escape", "keep", "Keep", id="confirm.keep"),
        Binding("left", "app.focus_previous", "Previous", show=False, id="confirm.previous"),
        Binding("right", "app.focus_next", "Next", show=False, id="confirm.next"),
    ]
    # The safe button has focus: a stray Enter keeps.
    AUTO_FOCUS = "#confirm-keep"

    def __init__(self, message: str, action: str = "Delete", keep: str = "Keep") -> None:
        super().__init__()
        self.message = message
        self.action_label = action
        self.keep_label = keep

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(Content(clean(self.message)), id="confirm-message")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.action_label, id="confirm-delete", variant="error")
                yield Button(self.keep_label, id="confirm-keep", variant="primary")
            hint = HINT.format(action=self.action_label.lower())
            yield Static(Content(hint), id="confirm-hint")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-delete")

    def action_keep(self) -> None:
        self.dismiss(False)
