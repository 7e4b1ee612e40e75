"""The open sessions of a `LocalBirdie`: the one shown, and those whose turn runs on while
another is shown.

A turn belongs to its session, not to what the screen shows: it runs on the engine's session
view it started on (`Engine.session_view`). Showing another session while a turn runs parks
that view here and shows another; showing the session again shows the parked view, its turn
still running (or finished: the view is forgotten when its turn ends in the background).
Only the engine the door started is ever closed.

Other processes (a `--print`, another TUI, another home on the same database) are seen by
polling (`pulse`): the shown session's latest checkpoint id, one indexed query.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from birdie_tui.service.protocol import BirdieError
from birdie_tui.service.rows import SessionPulse

if TYPE_CHECKING:  # the engine is imported by `LocalBirdie.start`, after the first paint
    from birdie_tui.agent.engine import Engine

# How long "open elsewhere" stays said after another process last changed the session.
ELSEWHERE_SECONDS = 120.0


class SessionDesk:
    def __init__(self, root: Engine) -> None:
        self.root = root  # the engine the door started: the one closed at the end
        self.shown = root
        self.turning: list[Engine] = []  # views with a turn running (shown or not)
        self.parked: dict[str, Engine] = {}  # session id -> view with a turn, not shown
        self._seen: dict[str, str | None] = {}  # session id -> the head at the last pulse
        self._elsewhere: dict[str, tuple[str, float]] = {}  # -> (who, when seen)

    def running(self) -> tuple[str, ...]:
        """The ids of the sessions with a turn running, the shown one included."""
        return tuple(view.session.id for view in self.turning if view.session is not None)

    def turn_started(self, view: Engine) -> None:
        self.turning.append(view)

    def turn_ended(self, view: Engine) -> None:
        if view in self.turning:
            self.turning.remove(view)
        if view is not self.shown:  # ended in the background: nothing shows it any more
            for sid, parked in list(self.parked.items()):
                if parked is view:
                    del self.parked[sid]
            self.root.drop_view(view)

    async def open(self, session_id: str) -> tuple[Engine, str]:
        """Show `session_id`: (the view now shown, the session id). Raises the engine's
        error, nothing switched, for a session that cannot be opened."""
        parked = self.parked.get(session_id)
        if parked is not None:  # its turn ran on meanwhile: shown as it now stands
            self.show(parked)
            return parked, session_id
        view = self._view_for_another()
        try:
            meta = await view.switch_session(session_id)
        except BaseException:
            if view is not self.shown:
                self.root.drop_view(view)
            raise
        self.show(view)
        return view, meta.id

    async def new(self) -> tuple[Engine, str]:
        """Show a new, unsaved session: (the view now shown, its provisional id)."""
        view = self._view_for_another()
        meta = await view.new_session()
        self.show(view)
        return view, meta.id

    def _view_for_another(self) -> Engine:
        """The shown view, or a new one while the shown one runs a turn (which stays with
        its session)."""
        return self.root.session_view() if self.shown in self.turning else self.shown

    def show(self, view: Engine) -> None:
        """Show `view`: the shown view is parked if its turn runs, else forgotten."""
        leaving = self.shown
        if leaving is view:
            return
        if leaving in self.turning and leaving.session is not None:
            self.parked[leaving.session.id] = leaving
        else:
            self.root.drop_view(leaving)
        for sid, parked in list(self.parked.items()):
            if parked is view:
                del self.parked[sid]
        self.shown = view

    # ------------------------------------------------------------------ other processes
    async def pulse(self) -> SessionPulse:
        """Whether another process added to the shown session's history since the last look
        (the session file is read again then), and who has it open elsewhere: whoever took
        its turn lock for a change this process did not make, for `ELSEWHERE_SECONDS`."""
        view = self.shown
        meta = view.session
        if meta is None or not meta.saved or view in self.turning:
            return SessionPulse()
        head, known = await view.history_head()
        # Changed: a head this engine neither wrote nor read, not told already. No baseline
        # is taken from a first look: the other process may have written before it.
        seen = self._seen.get(meta.id)
        self._seen[meta.id] = head
        changed = head != seen and not known
        if changed:
            fresh = view.sessions.load(meta.id)
            if fresh is not None:
                meta.absorb(fresh)
            self._elsewhere[meta.id] = (_holder(view, meta.id), time.monotonic())
        who, when = self._elsewhere.get(meta.id, ("", 0.0))
        recent = bool(who) and time.monotonic() - when < ELSEWHERE_SECONDS
        return SessionPulse(changed=changed, elsewhere=who if recent else "")


def _holder(view: Engine, session_id: str) -> str:
    """Who holds, or last held, the session's turn lock, when it is not this process."""
    holder = view.sessions.turn_lock(session_id).holder()
    if holder is None or holder == os.getpid():
        return "another process"
    return f"process {holder}" if isinstance(holder, int) else str(holder)


class OnDesk:
    """What `LocalBirdie` and its parts (approvals.py, commands.py, context.py) share: the desk
    of open sessions once started, and the engine of the session it shows."""

    _desk: SessionDesk | None

    @property
    def engine(self) -> Engine | None:
        """The shown session's engine; None before `start` and after `close`."""
        return self._desk.shown if self._desk is not None else None

    @property
    def _shown(self) -> Engine:
        """The shown session's engine, for a door that has started."""
        if self._desk is None:
            raise BirdieError("Birdie has not started")
        return self._desk.shown
