"""The runs view (F9, `/runs`, the palette): who runs the triggers, when each fires next, and
the run log, newest first. Enter (or a click) on a run opens its session, where a run that
stopped for an approval asks it as any reopened session does.

The door's three calls (`scheduled_runs`, `trigger_rows`, `scheduler_holder`) read a database
or a server, so they run in a worker thread, on opening, on `r` and every few seconds while
the view is open: a running run's status moves on screen. The screen sees only rows
(`RunRecord`, `TriggerRow`) through the small `RunSource` protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from birdie_tui.screen_text import one_line
from birdie_tui.service.rows import RunRecord, TriggerRow
from birdie_tui.tui.screens import run_rows
from birdie_tui.tui.screens.run_rows import (NO_RUNS, NO_TRIGGERS, RunsSnapshot, detail_text,
                                             holder_line, run_content, trigger_content)

REFRESH_SECONDS = 3.0
HINTS = "↑↓ move · enter open its session · r refresh · esc close"
LOADING = "Loading runs…"


class RunSource(Protocol):
    """What the view reads: the door's side of agents that run on their own."""

    def scheduled_runs(self, agent: str | None = None, limit: int = 100) -> list[RunRecord]: ...
    def trigger_rows(self) -> list[TriggerRow]: ...
    def scheduler_holder(self) -> str | None: ...


class RunsScreen(ModalScreen[str | None]):
    """Dismisses with the session id of the run to open, or None when closed."""

    DEFAULT_CSS = """
    RunsScreen {
        align: center middle;
        background: $background 60%;
    }
    RunsScreen > #runs-dialog {
        width: 130;
        max-width: 96%;
        height: 90%;
        padding: 0 1;
        border: thick $primary 70%;
        background: $surface;
    }
    RunsScreen #runs-title {
        text-style: bold;
        color: $primary;
        padding: 0 1;
    }
    RunsScreen .runs-heading {
        text-style: bold;
        padding: 0 1;
        margin-top: 1;
    }
    RunsScreen #runs-holder, RunsScreen #runs-detail, RunsScreen #runs-hints {
        height: auto;
        padding: 0 1;
    }
    RunsScreen #runs-triggers {
        height: auto;
        max-height: 7;
        border: none;
        background: $surface;
    }
    RunsScreen #runs-list {
        height: 1fr;
        border: none;
        background: $surface;
    }
    RunsScreen #runs-detail {
        min-height: 1;
        max-height: 4;
        border-top: solid $primary 30%;
    }
    RunsScreen #runs-hints {
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="runs.close"),
        Binding("r", "refresh", "Refresh", id="runs.refresh"),
    ]
    AUTO_FOCUS = "#runs-list"

    def __init__(self, source: RunSource, *, refresh_every: float | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        """`refresh_every`: seconds between reads (default `REFRESH_SECONDS`); `clock`: what
        "now" is for "in 12m" (default `run_rows.utc_now`, the real time)."""
        super().__init__()
        self.source = source
        self.refresh_every = refresh_every or REFRESH_SECONDS
        self._clock = clock or run_rows.utc_now
        self._loader: Worker[RunsSnapshot] | None = None
        self.snapshot: RunsSnapshot | None = None  # None until the first read arrives
        self._by_id: dict[str, RunRecord] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="runs-dialog"):
            yield Label("Runs", id="runs-title")
            yield Static("", id="runs-holder", markup=False)
            yield Label("Next runs", classes="runs-heading")
            triggers = OptionList(id="runs-triggers")
            triggers.can_focus = False  # read only: the keys belong to the run list
            yield triggers
            yield Label("Recent runs", classes="runs-heading")
            yield OptionList(id="runs-list")
            yield Static("", id="runs-detail", markup=False)
            yield Static(HINTS, id="runs-hints", markup=False)

    def on_mount(self) -> None:
        self.run_list.set_options([Option(Content.styled(LOADING, "$foreground-muted"),
                                          disabled=True)])
        self.refresh_rows()
        self.set_interval(self.refresh_every, self.refresh_rows)

    @property
    def run_list(self) -> OptionList:
        return self.query_one("#runs-list", OptionList)

    @property
    def trigger_list(self) -> OptionList:
        return self.query_one("#runs-triggers", OptionList)

    # -- reading ----------------------------------------------------------------------------

    def refresh_rows(self) -> None:
        """Read the door again in a worker thread; a read still under way is left to finish."""
        if self._loader is not None and self._loader.state in (WorkerState.PENDING,
                                                               WorkerState.RUNNING):
            return
        self._loader = self.run_worker(self._read, name="runs", group="runs", thread=True,
                                       exit_on_error=False)

    def _read(self) -> RunsSnapshot:  # in the worker thread
        source = self.source
        return RunsSnapshot(runs=list(source.scheduled_runs()),
                            triggers=list(source.trigger_rows()),
                            holder=source.scheduler_holder())

    @on(Worker.StateChanged)
    def _read_done(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._loader:
            return
        event.stop()
        if event.state == WorkerState.SUCCESS and event.worker.result is not None:
            self.snapshot = event.worker.result
            self._by_id = {run.run_id: run for run in self.snapshot.runs}
            self._draw()
        elif event.state == WorkerState.ERROR:
            message = f"Could not read the runs: {one_line(str(event.worker.error))}"
            if self.snapshot is None:
                self.run_list.set_options([Option(Content.styled(message, "$text-error"),
                                                  disabled=True)])
            self.notify(message, severity="error", timeout=4)

    # -- drawing ----------------------------------------------------------------------------

    def _width(self, widget: OptionList) -> int:
        """The cells a row may take: the list's, or (before its first layout) the screen's."""
        width = widget.scrollable_content_region.width
        return width if width > 0 else max(40, int(self.app.size.width * 0.96) - 8)

    def _draw(self) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        now = self._clock()
        self.query_one("#runs-holder", Static).update(holder_line(snapshot.holder,
                                                                  snapshot.runs))
        width = self._width(self.trigger_list)
        self.trigger_list.set_options(
            [Option(trigger_content(row, now, width), id=row.trigger.key)
             for row in snapshot.triggers]
            or [Option(Content.styled(NO_TRIGGERS, "$foreground-muted"), disabled=True)])
        runs, kept = self.run_list, self.highlighted_run
        if not snapshot.runs:
            runs.set_options([Option(Content.styled(NO_RUNS, "$foreground-muted"),
                                     disabled=True)])
            self._show_detail(None)
            return
        width, scrolled = self._width(runs), runs.scroll_y
        runs.set_options([Option(run_content(run, now, width), id=run.run_id)
                          for run in snapshot.runs])
        ids = [run.run_id for run in snapshot.runs]
        runs.highlighted = ids.index(kept.run_id) if kept and kept.run_id in ids else 0
        # A refresh keeps the reader's place (the highlighted run still in sight).
        runs.scroll_to(y=scrolled, animate=False, immediate=True)
        runs.scroll_to_highlight()
        self._show_detail(self.highlighted_run)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._draw)  # columns fold or come back with the width

    @property
    def highlighted_run(self) -> RunRecord | None:
        option = self.run_list.highlighted_option
        return self._by_id.get(option.id) if option is not None and option.id else None

    def _show_detail(self, run: RunRecord | None) -> None:
        detail = self.query_one("#runs-detail", Static)
        detail.update(detail_text(run, self._clock()) if run is not None else "")

    @on(OptionList.OptionHighlighted, "#runs-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_detail(self.highlighted_run)

    # -- actions ----------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#runs-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        run = self._by_id.get(event.option.id or "")
        if run is None:
            return
        if run.session_id is None:
            self.notify(f"This run has no session: it was {run.status}.", timeout=3)
            return
        self.dismiss(run.session_id)

    def action_refresh(self) -> None:
        self.refresh_rows()

    def action_close(self) -> None:
        self.dismiss(None)
