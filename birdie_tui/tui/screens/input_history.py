"""ctrl+r in the composer: earlier inputs across sessions, newest first, filtered as you type
(a substring, any case, as a shell's reverse search); Enter hands the chosen one back to the
composer (not sent), Esc closes. Keys typed right after ctrl+r are the filter: no type-ahead
guard here, unlike the dialogs that answer something.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.screen_text import literal
from birdie_tui.text import counted

SHOWN = 200  # matches listed at once: the rest are one more keystroke of filter away
LINE_CHARS = 240


def _line(text: str) -> Content:
    """An input on one line, as typed (never markup; newlines as ⏎, controls shown)."""
    flat = " ⏎ ".join(part for part in text.strip().splitlines())
    flat = literal(flat if len(flat) <= LINE_CHARS else flat[:LINE_CHARS - 1] + "…")
    return Content(flat)


class InputHistoryScreen(ModalScreen[str | None]):
    """Dismisses with the chosen input, or None."""

    DEFAULT_CSS = """
    InputHistoryScreen {
        align: center middle;
        background: $background 60%;
    }
    InputHistoryScreen > #history-dialog {
        width: 100;
        max-width: 95%;
        height: 80%;
        padding: 1 2;
        border: thick $primary 70%;
        background: $surface;
    }
    InputHistoryScreen #history-title { text-style: bold; color: $primary; }
    InputHistoryScreen OptionList { height: 1fr; margin-top: 1; }
    InputHistoryScreen #history-count { color: $text-muted; margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="input_history.close"),
        Binding("up", "move(-1)", "Previous", show=False, id="input_history.up"),
        Binding("down", "move(1)", "Next", show=False, id="input_history.down"),
    ]
    AUTO_FOCUS = "#history-filter"

    def __init__(self, entries: list[str]) -> None:
        super().__init__()
        self.entries = entries  # newest first
        self._lowered = [entry.lower() for entry in entries]
        self.shown: list[str] = []  # what the list holds now, in order

    def compose(self) -> ComposeResult:
        with Vertical(id="history-dialog"):
            yield Label("Earlier inputs", id="history-title")
            yield Input(placeholder="type to filter", id="history-filter")
            yield OptionList(id="history-list")
            yield Static("", id="history-count", markup=False)

    def on_mount(self) -> None:
        self._filter("")

    @on(Input.Changed, "#history-filter")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._filter(event.value)

    def _filter(self, query: str) -> None:
        needle = query.lower()
        found = [entry for entry, lowered in zip(self.entries, self._lowered)
                 if needle in lowered]
        self.shown = found[:SHOWN]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(_line(entry)) for entry in self.shown])
        if self.shown:
            options.highlighted = 0
        more = f" (the newest {SHOWN} listed: type to narrow)" if len(found) > SHOWN else ""
        total = counted(len(found), "input") if self.entries else "nothing typed yet"
        self.query_one("#history-count", Static).update(
            f"{total}{more} · enter puts it in the composer · esc closes")

    def action_move(self, delta: int) -> None:
        options = self.query_one(OptionList)
        if not self.shown:
            return
        at = options.highlighted if options.highlighted is not None else -delta
        options.highlighted = max(0, min(len(self.shown) - 1, at + delta))

    @on(Input.Submitted, "#history-filter")
    def _entered(self, event: Input.Submitted) -> None:
        event.stop()
        at = self.query_one(OptionList).highlighted
        self.dismiss(self.shown[at] if at is not None and self.shown else None)

    @on(OptionList.OptionSelected, "#history-list")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)
