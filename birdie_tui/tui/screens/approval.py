"""Ask the user before a tool that needs approval runs; the engine awaits the answer."""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static


def format_args(args: dict[str, Any]) -> str:
    """Pretty JSON; values JSON cannot hold are shown with str() rather than failing the modal."""
    try:
        return json.dumps(args, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # e.g. non-string keys mixed with others
        return repr(args)


class ApprovalScreen(ModalScreen[bool]):
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
    ApprovalScreen #approval-question {
        margin-bottom: 1;
    }
    ApprovalScreen #approval-args {
        height: auto;
        max-height: 20;
        padding: 0 1;
        background: $panel;
        border: none;
    }
    ApprovalScreen #approval-args:focus {
        background-tint: $foreground 5%;
    }
    ApprovalScreen #approval-buttons {
        height: auto;
        margin-top: 1;
        align-horizontal: right;
    }
    ApprovalScreen Button {
        margin-left: 2;
    }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Allow", id="approval.allow"),
        Binding("n,escape", "answer(False)", "Deny", id="approval.deny"),
    ]
    # Focus the args, not a button: an Enter meant for the composer must not approve a tool.
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
            with Horizontal(id="approval-buttons"):
                yield Button("Allow (y)", id="approval-allow", variant="success")
                yield Button("Deny (n)", id="approval-deny", variant="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "approval-allow")

    def action_answer(self, allow: bool) -> None:
        self.dismiss(allow)
