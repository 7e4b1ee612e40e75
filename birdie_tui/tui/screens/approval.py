"""Ask the user before a tool that needs approval runs; the engine awaits the answer.

However long the arguments, the answer stays in reach: the question and the buttons are
docked, and the arguments wrap and scroll in what is left. Nothing a user was already typing
can answer: there are no letter shortcuts, focus starts on the arguments (where Enter does
nothing) and keys typed before the dialog appeared are dropped (`GuardedModal`). Allowing
takes Tab to the Allow button then Enter, or a click; Esc denies.
"""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from birdie_tui.tui.screens.dialog import GuardedModal

HINT = "↑↓ scroll · tab to a button, enter to answer · esc deny"


def format_args(args: dict[str, Any]) -> str:
    """Pretty JSON; values JSON cannot hold are shown with str() rather than failing the modal."""
    try:
        return json.dumps(args, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # e.g. non-string keys mixed with others
        return repr(args)


class ApprovalScreen(GuardedModal[bool]):
    """Dismisses with True to allow the tool call, False to deny it."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        background: $background 60%;
    }
    ApprovalScreen > #approval-dialog {
        width: 80;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: thick $accent 80%;
        background: $surface;
    }
    /* Question and answer are docked; the args get what is left (100% of the undocked
       area) and scroll inside it, so no length of command pushes the buttons away. */
    ApprovalScreen #approval-question {
        dock: top;
        margin-bottom: 1;
    }
    ApprovalScreen #approval-args {
        height: auto;
        max-height: 100%;
        padding: 0 1;
        background: $panel;
        border: none;
    }
    ApprovalScreen #approval-args:focus {
        background-tint: $foreground 5%;
    }
    ApprovalScreen #approval-args-json {
        /* wrap, folding a long token, so nothing hides to the right */
        text-wrap: wrap;
        text-overflow: fold;
    }
    ApprovalScreen #approval-footer {
        dock: bottom;
        height: auto;
        margin-top: 1;
    }
    ApprovalScreen #approval-buttons {
        height: auto;
        align-horizontal: right;
    }
    ApprovalScreen Button {
        margin-left: 2;
    }
    ApprovalScreen #approval-hint {
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("escape", "answer(False)", "Deny", id="approval.deny"),
        # Reached from a button (the args scroll binds left/right themselves).
        Binding("left", "app.focus_previous", "Previous", show=False, id="approval.previous"),
        Binding("right", "app.focus_next", "Next", show=False, id="approval.next"),
    ]
    # Focus the args, not a button: an Enter meant for the composer must not answer, and the
    # arrow keys scroll a long command.
    AUTO_FOCUS = "#approval-args"

    def __init__(self, tool_name: str, skill: str, args: dict[str, Any]) -> None:
        super().__init__()
        self.tool_name = tool_name
        self.skill = skill
        self.args = args

    def compose(self) -> ComposeResult:
        question = Content.assemble(
            "Birdie wants to run ",
            (self.tool_name, "bold $accent"),
            " (skill ",
            (self.skill, "bold"),
            ")",
        )
        with Vertical(id="approval-dialog"):
            yield Static(question, id="approval-question")
            with VerticalScroll(id="approval-args"):
                yield Static(Content(format_args(self.args)), id="approval-args-json")
            with Vertical(id="approval-footer"):
                with Horizontal(id="approval-buttons"):
                    yield Button("Allow", id="approval-allow", variant="success")
                    yield Button("Deny", id="approval-deny", variant="error")
                yield Static(HINT, id="approval-hint", markup=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "approval-allow")

    def action_answer(self, allow: bool) -> None:
        self.dismiss(allow)
