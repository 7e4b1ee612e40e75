"""Pick, filter, rename and delete sessions without leaving the keyboard.

Every printable key filters, wherever focus is: a word typed into the browser can never act on
a session (type-ahead once deleted one). Actions are ctrl keys and buttons, and a delete still
asks (`ConfirmScreen`, where type-ahead cannot answer either).

Thousands of sessions never stall typing: rows are fetched in a worker thread (a "Loading
sessions…" line until they arrive; keys typed meanwhile filter them when they do), filtering
works on the loaded rows, narrowing the last match when the filter only grew, a burst of keys
redraws once, and the list makes options only for the rows within reach (`SessionList`).

The screen only sees plain `SessionRow`s and a small `SessionActions` protocol, so it never
touches the store or the agent; the app decides what "switch" and "new" mean.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Literal, Protocol, runtime_checkable

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.worker import Worker, WorkerState

from birdie_tui.screen_text import one_line
from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.rename import RenameScreen
# Row text and matching live with the list; imported here too, where they always were.
from birdie_tui.tui.screens.session_list import (  # noqa: F401
    SessionList,
    SessionRows,
    format_count,
    format_updated,
    matches,
    row_content,
)
from birdie_tui.service.rows import AgentRunRow, SessionRow
from birdie_tui.text import counted

BrowserResult = tuple[Literal["switch", "new"], str | None]

EMPTY_MESSAGE = "No sessions yet — ctrl+n starts a new one"
LOADING_MESSAGE = "Loading sessions…"
HINTS = "type to filter · ↑↓ move · enter open · ^n new · ^r rename · ^d delete · esc close"


class SessionActions(Protocol):
    def session_rows(self) -> list[SessionRow]: ...  # newest first, current flagged
    async def rename_session(self, session_id: str, title: str) -> None: ...
    async def delete_session(self, session_id: str) -> None: ...


@runtime_checkable
class SessionChildren(Protocol):
    """What the app may add: a session's sub-agent runs (the door's `agent_runs`)."""

    def agent_runs(self, session_id: str) -> list[AgentRunRow]: ...


def runs_line(runs: list[AgentRunRow]) -> str:
    """`↳ 3 agent runs: Summarizer ×2, Echoer` ("" for none)."""
    if not runs:
        return ""
    names = Counter(run.agent for run in runs)
    each = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in names.items())
    failed = sum(1 for run in runs if run.status != "done")
    return (f"↳ {counted(len(runs), 'agent run')}: {each}"
            + (f" · {failed} not done" if failed else ""))


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
    SessionBrowser #sessions-runs {
        height: auto;
        padding: 0 1;
        color: $accent;
        display: none;
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
        self._cursor_blink = cursor_blink
        self._loaded: SessionRows | None = None  # None until the first rows arrive
        self._loader: Worker[SessionRows] | None = None
        self._keep_on_load: str | None = None
        self._redraw_queued = False
        # Enter and moves typed before the first rows came: replayed, in order, when they do.
        self._after_load: list[Callable[[], bool | None]] = []

    @property
    def _rows(self) -> list[SessionRow]:
        """The rows as loaded (all of them, unfiltered); none until they arrive."""
        return self._loaded.rows if self._loaded is not None else []

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
            yield Static("", id="sessions-runs", markup=False)  # the highlighted one's children
            with Horizontal(id="sessions-actions"):
                yield Button("Open", id="sessions-open", compact=True)
                yield Button("New ^n", id="sessions-new", compact=True)
                yield Button("Rename ^r", id="sessions-rename", compact=True)
                yield Button("Delete ^d", id="sessions-delete", compact=True, variant="error")
            yield Static(HINTS, id="sessions-hints", markup=False)

    def on_mount(self) -> None:
        self.session_list.show_message(Content.styled(LOADING_MESSAGE, "$foreground-muted"))
        self.reload_rows()

    # -- rows -------------------------------------------------------------------------------

    @property
    def filter_input(self) -> Input:
        return self.query_one("#sessions-filter", Input)

    @property
    def session_list(self) -> SessionList:
        return self.query_one("#sessions", SessionList)

    @property
    def visible_rows(self) -> list[SessionRow]:
        if self._loaded is None:
            return []
        return list(self._loaded.matching(self.filter_input.value.strip()))

    @property
    def highlighted_id(self) -> str | None:
        self._redraw_now()  # a key still waiting to filter decides what is highlighted
        return self._highlighted()

    def reload_rows(self, keep: str | None = None) -> None:
        """Ask the app for fresh rows, in a worker thread; when they arrive the list is redrawn
        with the highlight on `keep` (default: the row highlighted then) if it survives."""
        self._keep_on_load = keep
        self._loader = self.run_worker(self._fetch_rows, name="session rows", group="rows",
                                       thread=True, exclusive=True, exit_on_error=False)

    def _fetch_rows(self) -> SessionRows:  # in the worker thread
        return SessionRows(list(self.actions.session_rows()))

    @on(Worker.StateChanged)
    def _rows_fetched(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._loader:
            return  # an earlier load, overtaken by a newer one
        event.stop()
        if event.state == WorkerState.SUCCESS and event.worker.result is not None:
            first = self._loaded is None
            self._loaded = event.worker.result
            self._render_rows(self._keep_on_load or (None if first else self._highlighted()))
            pending, self._after_load = self._after_load, []
            for action in pending:
                if action():  # the browser was dismissed
                    break
        elif event.state == WorkerState.ERROR:
            message = f"Could not list sessions: {event.worker.error}"
            if self._loaded is None:
                self.session_list.show_message(Content.styled(message, "$text-error"))
            self.notify(message, severity="error")

    def _render_rows(self, keep: str | None = None) -> None:
        """Draw the rows the filter matches, the highlight on `keep` if it is among them; the
        first paint starts on the current session, so enter is a no-op switch."""
        self._redraw_queued = False
        if self._loaded is None:
            return  # still loading: the filter applies when the rows arrive
        needle = self.filter_input.value.strip()
        matched = self._loaded.matching(needle)
        if not matched:
            message = EMPTY_MESSAGE
            if needle and self._loaded.rows:
                message = f"No sessions match “{needle}”"
            self.session_list.show_message(Content.styled(message, "$foreground-muted"))
            return
        if keep is None:
            keep = next((row.id for row in self._loaded.rows if row.current), None)
        self.session_list.show(matched, self._loaded.option, matched.index_of(keep))

    def _highlighted(self) -> str | None:
        option = self.session_list.highlighted_option
        return option.id if option is not None else None

    def row(self, session_id: str) -> SessionRow | None:
        return self._loaded.get(session_id) if self._loaded is not None else None

    # -- filtering --------------------------------------------------------------------------

    @on(Input.Changed, "#sessions-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        """Redraw once for a burst: after the keys already queued have reached the filter."""
        event.stop()
        if not self._redraw_queued:
            self._redraw_queued = True
            self.call_later(self._redraw_now)

    def _redraw_now(self) -> None:
        if self._redraw_queued:
            self._render_rows(self._highlighted())

    @on(Input.Submitted, "#sessions-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self._kept_until_loaded(lambda: self._switch_to(self.highlighted_id)):
            self._switch_to(self.highlighted_id)

    def _kept_until_loaded(self, action: Callable[[], bool | None]) -> bool:
        """Before the rows arrive, keep a key that needs them (True) instead of losing it."""
        if self._loaded is None:
            self._after_load.append(action)
        return self._loaded is None

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
        if self._kept_until_loaded(partial(self.action_cursor, direction)):
            return
        self._redraw_now()
        moves = {
            "up": self.session_list.action_cursor_up,
            "down": self.session_list.action_cursor_down,
            "page_up": self.session_list.action_page_up,
            "page_down": self.session_list.action_page_down,
        }
        moves[direction]()  # type: ignore[no-untyped-call]  # Textual's actions are untyped

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

    @on(OptionList.OptionHighlighted, "#sessions")
    def _show_children(self, event: OptionList.OptionHighlighted) -> None:
        """The highlighted session's sub-agent runs, when the app can tell them."""
        line = self.query_one("#sessions-runs", Static)
        actions, session_id = self.actions, event.option.id
        text = ""
        if isinstance(actions, SessionChildren) and session_id is not None:
            try:
                text = runs_line(actions.agent_runs(session_id))
            except Exception:  # noqa: BLE001 - a detail line never stops the browser
                text = ""
        line.update(text)
        line.display = bool(text)

    @on(OptionList.OptionSelected, "#sessions")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._switch_to(event.option.id)

    def _switch_to(self, session_id: str | None) -> bool:
        if session_id is not None:
            self.dismiss(("switch", session_id))
        return session_id is not None

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
        row = self.row(session_id)
        # Named by its title too: an id alone does not say which conversation goes.
        title = f" \u201c{one_line(row.title)}\u201d" if row and row.title else ""
        message = f"Delete session {session_id}{title}? This removes its history."
        self.app.push_screen(ConfirmScreen(message), partial(self._delete, session_id))

    async def _rename(self, session_id: str, old_title: str, title: str | None) -> None:
        if title is None or title == old_title:
            return
        try:
            await self.actions.rename_session(session_id, title)
        except Exception as exc:  # noqa: BLE001 — shown to the user, the browser stays open
            self.notify(f"Could not rename {session_id}: {exc}", severity="error")
        else:
            # Shown at once; the fresh rows (the app's own wording of the title) follow.
            if self._loaded is not None:
                self._loaded = self._loaded.edited(session_id, " ".join(title.split()))
        self._render_rows(session_id)
        self.reload_rows()

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
        else:  # gone at once; the fresh rows follow
            if self._loaded is not None:
                self._loaded = self._loaded.edited(session_id, None, drop=True)
        self._render_rows(neighbour)
        self.reload_rows()

