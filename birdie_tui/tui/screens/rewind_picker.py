"""The rewind picker: your earlier messages, newest first, to go back to (docs/user-guide.md,
Rewind and fork). Esc twice in an empty composer opens it, as in Claude Code; so do `/rewind`
and `/fork` without a number, and the palette.

Keyboard driven: ↑/↓ move, Enter rewinds to before the highlighted message (its text comes back
to the composer; opened by `/fork`, Enter forks), f forks from it (a new session with the
conversation before it, the message in its composer), Esc closes.
A click on a row picks it for the mode the picker was opened in. Keys typed before it showed
never pick (`GuardedModal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.screen_text import one_line
from birdie_tui.service.rows import UserTurn
from birdie_tui.tui.screens.dialog import GuardedModal

Action = Literal["rewind", "fork"]
Picked = tuple[Action, int]  # what to do, and the message's number (as /history shows it)
HINTS = {"rewind": "enter rewind to before it · f fork from it · esc close",
         "fork": "enter fork from before it · esc close"}
ROW_CHARS = 200


class RewindPicker(GuardedModal[Picked | None]):
    """Dismisses with (action, message number), or None when closed."""

    DEFAULT_CSS = """
    RewindPicker {
        align: center middle;
        background: $background 60%;
    }
    RewindPicker > #rewind-dialog {
        width: 90;
        max-width: 95%;
        height: auto;
        max-height: 80%;
        padding: 1 2;
        border: thick $accent 70%;
        background: $surface;
    }
    RewindPicker #rewind-title { text-style: bold; margin-bottom: 1; }
    RewindPicker #rewind-list { height: auto; max-height: 20; }
    RewindPicker #rewind-hint { color: $text-muted; margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="rewind.close"),
        # Enter does what the picker was opened for (`/fork` opens it to fork).
        Binding("enter", "pick_default", "Pick", show=False, id="rewind.pick", priority=True),
        Binding("f", "pick('fork')", "Fork", show=False, id="rewind.fork"),
    ]

    def __init__(self, turns: Sequence[UserTurn], *, default: Action = "rewind") -> None:
        super().__init__()
        self.turns = list(turns)
        self.default = default

    def compose(self) -> ComposeResult:
        title = "Rewind to before a message" if self.default == "rewind" \
            else "Fork from before a message"
        with Vertical(id="rewind-dialog"):
            yield Label(title, id="rewind-title")
            yield OptionList(*(Option(_row(turn), id=str(turn.turn))
                               for turn in reversed(self.turns)), id="rewind-list")
            yield Static(HINTS[self.default], id="rewind-hint", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0 if self.turns else None
        options.focus()

    def highlighted(self) -> int | None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None:
            return None
        option_id = options.get_option_at_index(index).id
        return int(option_id) if option_id is not None else None

    def action_pick(self, action: Action) -> None:
        number = self.highlighted()
        if number is not None:
            self.dismiss((action, number))

    def action_pick_default(self) -> None:
        self.action_pick(self.default)

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss((self.default, int(event.option.id)))


def _row(turn: UserTurn) -> Content:
    text = one_line(turn.text)
    if len(text) > ROW_CHARS:
        text = text[:ROW_CHARS - 1] + "…"
    return Content.assemble((f"{turn.turn:>3}  ", "$foreground-muted"), text)
