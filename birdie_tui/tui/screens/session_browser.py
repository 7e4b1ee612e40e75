"""Pick, filter, rename and delete sessions without leaving the keyboard.

Every printable key filters, wherever focus is: a word typed into the browser can never act on
a session (type-ahead once deleted one). Actions are ctrl keys and buttons, and a delete still
asks (`ConfirmScreen`, where type-ahead cannot answer either).

The screen only sees plain `SessionRow`s and a small `SessionActions` protocol, so it never
touches the store or the agent; the app decides what "switch" and "new" mean.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Literal, Protocol

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.rename import RenameScreen
from birdie_tui.tui.screens.session_list import SessionList
from birdie_tui.service.rows import SessionRow

BrowserResult = tuple[Literal["switch", "new"], str | None]

EMPTY_MESSAGE = "No sessions yet — ctrl+n starts a new one"
HINTS = "type to filter · ↑↓ move · enter open · ^n new · ^r rename · ^d delete · esc close"


class SessionActions(Protocol):
    def session_rows(self) -> list[SessionRow]: ...  # newest first, current flagged
    async def rename_session(self, session_id: str, title: str) -> None: ...
    async def delete_session(self, session_id: str) -> None: ...


def format_updated(updated_at: str) -> str:
    """`YYYY-MM-DD HH:MM` as stored; no timezone conversion, so tests and snapshots are stable."""
    try:
        return datetime.fromisoformat(updated_at).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return updated_at[:16]


def format_count(n: int) -> str:
    """Token counts short enough for one row: 950, 12.3k, 4.1M."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


def row_content(row: SessionRow) -> Content:
    """One option's text; built from Content pieces so a title with `[` is never markup."""
    turns = f"{row.turns} turn" if row.turns == 1 else f"{row.turns} turns"
    sep = (" · ", "$foreground-muted")
    tokens = f"↑{format_count(row.input_tokens)} ↓{format_count(row.output_tokens)}"
    return Content.assemble(
        ("● ", "bold $accent") if row.current else "  ",
        (row.id, "bold"),
        sep,
        row.title,
        sep,
        (format_updated(row.updated_at), "$foreground-muted"),
        sep,
        (turns, "$foreground-muted"),
        sep,
        (tokens, "$foreground-muted"),
    )


def matches(row: SessionRow, needle: str) -> bool:
    needle = needle.casefold()
    return needle in row.id.casefold() or needle in row.title.casefold()


class SessionBrowser(ModalScreen[BrowserResult | None]):
    """Dismisses with ("switch", id), ("new", None), or None when closed."""

    DEFAULT_CSS = """
    SessionBrowser {
        align: center middle;
        background: $background 60%;
    }
    SessionBrowser > #sessions-dialog {
        width: 110;
        max-width: 95%;
        height: 80%;
        padding: 0 1;
        border: thick $primary 70%;
        background: $surface;
    }
    SessionBrowser #sessions-title {
        width: 1fr;
        text-style: bold;
        color: $primary;
        padding: 0 1;
    }
    SessionBrowser #sessions-filter {
        margin-bottom: 1;
    }
    SessionBrowser #sessions {
        height: 1fr;
        border: none;
        background: $surface;
    }
    SessionBrowser #sessions:focus {
        background-tint: $foreground 3%;
    }
    /* Focus usually stays in the filter: show the highlight as clearly as on a focused list. */
    SessionBrowser #sessions > .option-list--option-highlighted {
        color: $block-cursor-foreground;
        background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    SessionBrowser #sessions-actions {
        height: auto;
        padding: 0 1;
    }
    SessionBrowser #sessions-actions Button {
        margin-right: 2;
    }
    SessionBrowser #sessions-hints {
        height: auto;
        color: $text-muted;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="sessions.close"),
        # Reached only while the filter (or a button) has focus: the list moves itself first.
        Binding("up", "cursor('up')", "Up", show=False, id="sessions.up"),
        Binding("down", "cursor('down')", "Down", show=False, id="sessions.down"),
        Binding("pageup", "cursor('page_up')", "Page up", show=False, id="sessions.page-up"),
        Binding("pagedown", "cursor('page_down')", "Page down", show=False, id="sessions.page-down"),
        # No plain letters: those filter. Priority, so they work from the filter too; ctrl+d
        # beats the Input's delete-right, which the delete key still does.
        Binding("ctrl+n", "new", "New", priority=True, id="sessions.new"),
        Binding("ctrl+r", "rename", "Rename", priority=True, id="sessions.rename"),
        Binding("ctrl+d", "delete", "Delete", priority=True, id="sessions.delete"),
    ]
    AUTO_FOCUS = "#sessions-filter"

    def __init__(self, actions: SessionActions, *, cursor_blink: bool | None = None) -> None:
        """`cursor_blink`: the filter's cursor; None follows the app's `cursor_blink` if it has one."""
        super().__init__()
        self.actions = actions
        self._rows: list[SessionRow] = []
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        blink = self._cursor_blink
        if blink is None:
            blink = bool(getattr(self.app, "cursor_blink", True))
        with Vertical(id="sessions-dialog"):
            yield Label("Sessions", id="sessions-title")
            # No select-on-focus: a letter typed while a button had focus must survive the next.
            filter_input = Input(
                placeholder="type to filter", id="sessions-filter", select_on_focus=False
            )
            filter_input.cursor_blink = blink
            yield filter_input
            yield SessionList(id="sessions")
            with Horizontal(id="sessions-actions"):
                yield Button("Open", id="sessions-open", compact=True)
                yield Button("New ^n", id="sessions-new", compact=True)
                yield Button("Rename ^r", id="sessions-rename", compact=True)
                yield Button("Delete ^d", id="sessions-delete", compact=True, variant="error")
            yield Static(HINTS, id="sessions-hints", markup=False)

    def on_mount(self) -> None:
        self.reload_rows()

    # -- rows -------------------------------------------------------------------------------

    @property
    def filter_input(self) -> Input:
        return self.query_one("#sessions-filter", Input)

    @property
    def session_list(self) -> OptionList:
        return self.query_one("#sessions", OptionList)

    @property
    def visible_rows(self) -> list[SessionRow]:
        needle = self.filter_input.value.strip()
        return [row for row in self._rows if not needle or matches(row, needle)]

    @property
    def highlighted_id(self) -> str | None:
        option = self.session_list.highlighted_option
        return option.id if option is not None else None

    def reload_rows(self, keep: str | None = None) -> None:
        """Ask the app for fresh rows and redraw, keeping the highlight on `keep` if it survives."""
        self._rows = list(self.actions.session_rows())
        self._render_rows(keep)

    def _render_rows(self, keep: str | None = None) -> None:
        rows = self.visible_rows
        option_list = self.session_list
        if rows:
            option_list.set_options(Option(row_content(row), id=row.id) for row in rows)
            ids = [row.id for row in rows]
            if keep is None:
                # First paint: start on the current session so enter is a no-op switch.
                keep = next((row.id for row in rows if row.current), None)
            option_list.highlighted = ids.index(keep) if keep in ids else 0
        else:
            needle = self.filter_input.value.strip()
            message = EMPTY_MESSAGE
            if needle and self._rows:
                message = f"No sessions match “{needle}”"
            empty = Option(Content.styled(message, "$foreground-muted"), disabled=True)
            option_list.set_options([empty])

    def row(self, session_id: str) -> SessionRow | None:
        return next((row for row in self._rows if row.id == session_id), None)

    # -- filtering --------------------------------------------------------------------------

    @on(Input.Changed, "#sessions-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._render_rows(self.highlighted_id)

    @on(Input.Submitted, "#sessions-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._switch_to(self.highlighted_id)

    def on_key(self, event: events.Key) -> None:
        """A printable key typed anywhere else in the browser goes to the filter, never acts."""
        if not event.is_printable or event.character is None:
            return
        # The filter inserted its own keys already; the list and buttons ignore printable ones.
        event.stop()
        event.prevent_default()
        self.filter_input.focus()
        self.filter_input.insert_text_at_cursor(event.character)

    def action_cursor(self, direction: str) -> None:
        moves = {
            "up": self.session_list.action_cursor_up,
            "down": self.session_list.action_cursor_down,
            "page_up": self.session_list.action_page_up,
            "page_down": self.session_list.action_page_down,
        }
        moves[direction]()

    # -- actions ----------------------------------------------------------------------------

    @on(Button.Pressed, "#sessions-actions Button")
    def _button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "sessions-open": lambda: self._switch_to(self.highlighted_id),
            "sessions-new": self.action_new,
            "sessions-rename": self.action_rename,
            "sessions-delete": self.action_delete,
        }
        actions[event.button.id or ""]()

    @on(OptionList.OptionSelected, "#sessions")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._switch_to(event.option.id)

    def _switch_to(self, session_id: str | None) -> None:
        if session_id is not None:
            self.dismiss(("switch", session_id))

    def action_close(self) -> None:
        if self.filter_input.value:
            self.filter_input.value = ""
            self.filter_input.focus()
        else:
            self.dismiss(None)

    def action_new(self) -> None:
        self.dismiss(("new", None))

    def action_rename(self) -> None:
        session_id = self.highlighted_id
        if session_id is None:
            return
        row = self.row(session_id)
        title = row.title if row else ""
        # Pushed at once, not from a worker: the next key already belongs to the dialog.
        self.app.push_screen(RenameScreen(title), partial(self._rename, session_id, title))

    def action_delete(self) -> None:
        session_id = self.highlighted_id
        if session_id is None:
            return
        message = f"Delete session {session_id}? This removes its history."
        self.app.push_screen(ConfirmScreen(message), partial(self._delete, session_id))

    async def _rename(self, session_id: str, old_title: str, title: str | None) -> None:
        if title is None or title == old_title:
            return
        try:
            await self.actions.rename_session(session_id, title)
        except Exception as exc:  # noqa: BLE001 — shown to the user, the browser stays open
            self.notify(f"Could not rename {session_id}: {exc}", severity="error")
        self.reload_rows(keep=session_id)

    async def _delete(self, session_id: str, confirmed: bool | None) -> None:
        if not confirmed:
            return
        ids = [row.id for row in self.visible_rows]
        index = ids.index(session_id) if session_id in ids else 0
        # Land on the row that slides into the deleted one's place.
        neighbour = None
        if len(ids) > 1:
            neighbour = ids[index + 1] if index + 1 < len(ids) else ids[index - 1]
        try:
            await self.actions.delete_session(session_id)
        except Exception as exc:  # noqa: BLE001 — shown to the user, the browser stays open
            self.notify(f"Could not delete {session_id}: {exc}", severity="error")
            neighbour = session_id
        self.reload_rows(keep=neighbour)
