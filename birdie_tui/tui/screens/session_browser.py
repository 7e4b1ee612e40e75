"""Pick, filter, rename and delete sessions without leaving the keyboard.

The screen only sees plain `SessionRow`s and a small `SessionActions` protocol, so it never
touches the store or the agent; the app decides what "switch" and "new" mean.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Protocol

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.rename import RenameScreen
from birdie_tui.tui.view_models import SessionRow

BrowserResult = tuple[Literal["switch", "new"], str | None]

EMPTY_MESSAGE = "No sessions yet — press n for a new one"
HINTS = "enter open · n new · r rename · d delete · esc close"


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
    sep = (" · ", "$text-muted")
    tokens = f"↑{format_count(row.input_tokens)} ↓{format_count(row.output_tokens)}"
    return Content.assemble(
        ("● ", "bold $accent") if row.current else "  ",
        (row.id, "bold"),
        sep,
        row.title,
        sep,
        (format_updated(row.updated_at), "$text-muted"),
        sep,
        (turns, "$text-muted"),
        sep,
        (tokens, "$text-muted"),
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
    SessionBrowser #sessions-hints {
        height: 1;
        color: $text-muted;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="sessions.close"),
        Binding("up", "cursor('up')", "Up", show=False, id="sessions.up"),
        Binding("down", "cursor('down')", "Down", show=False, id="sessions.down"),
        # Plain letters act only when the list has focus (the filter Input consumes printable
        # keys); the ctrl forms work anywhere, as priority bindings that beat the Input's ctrl+d.
        Binding("n", "new", "New", id="sessions.new"),
        Binding("r", "rename", "Rename", id="sessions.rename"),
        Binding("d", "delete", "Delete", id="sessions.delete"),
        Binding("ctrl+n", "new", "New", priority=True, show=False, id="sessions.new-any"),
        Binding("ctrl+r", "rename", "Rename", priority=True, show=False, id="sessions.rename-any"),
        Binding("ctrl+d", "delete", "Delete", priority=True, show=False, id="sessions.delete-any"),
    ]
    AUTO_FOCUS = "#sessions"

    def __init__(self, actions: SessionActions) -> None:
        super().__init__()
        self.actions = actions
        self._rows: list[SessionRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog"):
            yield Label("Sessions", id="sessions-title")
            # No select-on-focus: the first letter typed on the list must survive the next one.
            yield Input(
                placeholder="type to filter", id="sessions-filter", select_on_focus=False
            )
            yield OptionList(id="sessions")
            yield Static(HINTS, id="sessions-hints")

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
            empty = Option(Content.styled(message, "$text-muted"), disabled=True)
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
        """Typing on the list goes to the filter, except keys this screen binds (n, r, d)."""
        if self.focused is not self.session_list:
            return
        if not event.is_printable or event.character is None:
            return
        if event.key in self._bindings.key_to_bindings:
            return
        event.stop()
        event.prevent_default()
        self.filter_input.focus()
        self.filter_input.insert_text_at_cursor(event.character)

    def action_cursor(self, direction: str) -> None:
        # Reached only while the Input has focus: the list handles its own up/down first.
        if direction == "up":
            self.session_list.action_cursor_up()
        else:
            self.session_list.action_cursor_down()

    # -- actions ----------------------------------------------------------------------------

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
            self.session_list.focus()
        else:
            self.dismiss(None)

    def action_new(self) -> None:
        self.dismiss(("new", None))

    def action_rename(self) -> None:
        session_id = self.highlighted_id
        if session_id is not None:
            self._rename(session_id)

    def action_delete(self) -> None:
        session_id = self.highlighted_id
        if session_id is not None:
            self._delete(session_id)

    @work(exclusive=True, group="session-browser", exit_on_error=False)
    async def _rename(self, session_id: str) -> None:
        row = self.row(session_id)
        title = await self.app.push_screen_wait(RenameScreen(row.title if row else ""))
        if title is None or (row is not None and title == row.title):
            return
        try:
            await self.actions.rename_session(session_id, title)
        except Exception as exc:  # noqa: BLE001 — shown to the user, the browser stays open
            self.notify(f"Could not rename {session_id}: {exc}", severity="error")
        self.reload_rows(keep=session_id)

    @work(exclusive=True, group="session-browser", exit_on_error=False)
    async def _delete(self, session_id: str) -> None:
        message = f"Delete session {session_id}? This removes its history."
        if not await self.app.push_screen_wait(ConfirmScreen(message)):
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
