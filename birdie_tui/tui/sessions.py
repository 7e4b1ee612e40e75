"""Sessions from the screen: switch, new, cycle, delete, the browser, and replaying the open
session into the chat when the front door says one was opened (its `session` event).

Switching never stops a turn: the screen's runner (`screen.turns`) is parked with its session
(`parked`, by session id) and runs on; showing that session again takes it back and replays
the turn so far into the chat (`TurnRunner.replay`). The browser and the status bar read
`busy()`: which sessions run a turn, and which wait for an approval.

Another process's new turns in the shown session are polled for (`watch_others`, the door's
`session_pulse`) and shown without reopening; the status bar says who has it open elsewhere."""

from __future__ import annotations

import re
from dataclasses import replace

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from birdie_tui.mentions.attach import typed_text
from birdie_tui.tui import collector
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
from birdie_tui.tui.turns import TurnRunner
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar
from birdie_tui.tui.widgets.status_bar import others_text

if TYPE_CHECKING:
    from birdie_tui.service.rows import AgentRunRow, SessionRow
    from birdie_tui.service import Birdie
    from birdie_tui.tui.main_screen import MainScreen


# While nothing runs in the shown session, it is checked this often for other processes' turns
# (a `--print`, another TUI, another home on the same database): one indexed query.
PULSE_SECONDS = 1.5

# The keys the welcome names, by binding id: a user's keymap may have moved any of them.
WELCOME_KEYS = ("composer.submit", "composer.newline", "app.sessions", "app.palette")


def welcome_keys(app: Any) -> dict[str, str]:
    """The keys the welcome names, as the active bindings have them (the user's keymap)."""
    # Backslash-escape punctuation: a key from settings.json is shown, never read as Markdown.
    return {name: re.sub(r"([\\`*_\[\]<>|~#!&])", r"\\\1", app.key_for(name))
            for name in WELCOME_KEYS}


def welcome_text(status: Any, keys: dict[str, str] | None = None) -> str:
    key = {"composer.submit": "Enter", "composer.newline": "ctrl+j", "app.sessions": "ctrl+s",
           "app.palette": "ctrl+p", **(keys or {})}
    lines = [
        f"**Session `{status.session_id}`** · {status.model}",
        "",
        f"Type a message and press **{key['composer.submit']}** "
        f"({key['composer.newline']} for a new line). `/help` lists commands; "
        f"**{key['app.sessions']}** browses sessions; **{key['app.palette']}** opens the palette.",
    ]
    if status.vendor == "offline":
        lines += [
            "",
            "No API key was found, so the built-in offline model answers. It can still run "
            'your tools: try `call list_files {"path": "."}`.',
        ]
    return "\n".join(lines)


class SessionControl:
    def __init__(self, screen: MainScreen):
        self.screen = screen
        self.parked: dict[str, TurnRunner] = {}  # session id -> its turn, running unseen
        self.elsewhere = ""  # who else has the shown session open ("" when nobody we know)
        self._pulse_timer: Any = None

    # ------------------------------------------------------------ other processes
    def watch_others(self) -> None:
        """Poll the shown session for other processes' turns, for the screen's life."""
        if self._pulse_timer is None:
            self._pulse_timer = self.screen.set_interval(PULSE_SECONDS, self._pulse)

    def _pulse(self) -> None:
        if self.birdie is not None and not self.screen.turns.running:
            self.screen.run_worker(self._pulse_now(), group="pulse", exclusive=True,
                                   exit_on_error=False)

    async def _pulse_now(self) -> None:
        pulse = await self.door.session_pulse()
        if pulse.elsewhere != self.elsewhere:
            self.elsewhere = pulse.elsewhere
            self.screen.show_status()
        if pulse.changed and not self.screen.turns.running:  # their new turns, as on opening
            await self.show_current()

    def others_line(self, shown: str) -> str:
        """The status bar's word on other sessions' turns and other processes."""
        parts = [others_text(self.busy(), shown)]
        parts.append(f"open elsewhere: {self.elsewhere}" if self.elsewhere else "")
        return ", ".join(part for part in parts if part)

    # ------------------------------------------------------------ turns of other sessions
    def busy(self) -> dict[str, str]:
        """Session id -> "running" or "waiting for approval", for every running turn."""
        runners = dict(self.parked)
        shown = self.screen.turns
        if shown.running and self.birdie is not None:
            runners[self.birdie.status().session_id] = shown
        return {sid: "waiting for approval" if r.asking_away else "running"
                for sid, r in runners.items() if r.running}

    def running_turns(self) -> list[TurnRunner]:
        """Every runner with a turn still running: the screen's and the parked ones."""
        return [r for r in (self.screen.turns, *self.parked.values()) if r.running]

    def ended_away(self, runner: TurnRunner) -> None:
        """A parked turn ended: its session shows the saved history when opened again."""
        if self.parked.get(runner.session_id) is runner:
            del self.parked[runner.session_id]
        self.screen.show_status()

    def quit(self) -> None:
        """Leave the app; with turns running (in any session) ask once first: Quit, or the
        quit key again, leaves (the turns are cancelled, their histories repaired)."""
        from birdie_tui.tui.screens.confirm import ConfirmScreen

        app = self.screen.app
        running = len(self.running_turns())
        if not running or self._asking_quit:
            app.exit(0)
            return
        self._asking_quit = True

        def answered(leave: bool | None) -> None:
            self._asking_quit = False
            if leave:
                app.exit(0)

        turns = "1 running turn" if running == 1 else f"{running} running turns"
        app.push_screen(ConfirmScreen(f"Quit and cancel {turns}? They are left marked as "
                                      "interrupted.", action="Quit", keep="Stay"), answered)

    _asking_quit = False  # the quit dialog is open: the quit key again leaves

    def _leave(self, leaving: str, runner: TurnRunner, target: str | None) -> None:
        """The door now shows another session: the leaving turn is parked with its session,
        and the target's own turn, if one runs, becomes the screen's."""
        if runner.running:
            runner.park(leaving)
            self.parked[leaving] = runner
        back = self.parked.pop(target, None) if target is not None else None
        self.screen.turns = back or TurnRunner(self.screen)

    @property
    def birdie(self) -> Birdie | None:
        return self.screen.birdie

    @property
    def door(self) -> Birdie:
        """The running door (what acts on a session runs only once Birdie has started)."""
        birdie = self.screen.birdie
        if birdie is None:
            raise RuntimeError("Birdie is not running")
        return birdie

    def run(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run a session operation in its own worker group (never the turn's)."""
        self.screen.run_worker(work, group="sessions", exclusive=True, exit_on_error=False)

    def not_running(self) -> None:
        """Session keys before Birdie runs: say what is going on and what to do."""
        if self.screen.app.boot_failed:
            self.screen.notify("Birdie is not running — ctrl+n or /retry starts it again.",
                               severity="warning", timeout=4)
        else:
            self.screen.notify("Still starting up…", timeout=2)

    async def show_current(self, *, new: bool = False) -> None:
        """Replay the open session into the chat, with its skills, context and figures; a
        step it left waiting for approval is asked again."""
        screen, birdie = self.screen, self.door
        screen.apply_start_mode()
        chat = screen.chat
        await chat.clear_log()
        items = await birdie.transcript()
        runner = screen.turns
        if runner.running and not runner.shown:  # its turn is replayed after the history
            items = runner.before_turn(items)
        if items or (runner.running and not runner.shown):
            with collector.paused():
                await chat.replay(items)
        else:
            chat.add_notice(welcome_text(birdie.status(), welcome_keys(screen.app)),
                            markdown=True)
        runner = screen.turns
        if runner.running and not runner.shown:  # a turn that ran on while away: live again
            runner.replay()
        screen.query_one(Composer).set_history([typed_text(i.content) for i in items
                                                if i.role == "user"])
        panel = screen.query_one(ContextPanel)
        panel.set_records(await birdie.contexts(), keep=False)  # every call, for ←/→
        panel.show(await birdie.injection())  # the latest call's bodies (or the older view)
        screen.query_one(SkillSidebar).set_skills(birdie.skill_rows(), birdie.broken_files())
        screen.show_agents()
        screen.show_agent_runs()
        screen.show_status()
        self.watch_others()
        await screen.turns.ask_pending()
        screen.send_queued()  # its own queue: what was typed while its turn ran

    def reload_contexts(self) -> None:
        """The session's call records as saved, into the context panel: one door call, at a
        turn's end or after a compaction (the live `injected` events add calls meanwhile)."""
        if self.birdie is not None:
            self.screen.run_worker(self._reload_contexts(), group="contexts", exclusive=True,
                                   exit_on_error=False)

    async def _reload_contexts(self) -> None:
        records = await self.door.contexts()
        if records:  # an unsaved session has none yet: keep what the live events brought
            self.screen.query_one(ContextPanel).set_records(records)
        self.screen.show_agent_runs()

    async def switch(self, session_id: str) -> None:
        status = self.door.status()
        if status.session_id == session_id:
            return
        runner = self.screen.turns
        await self.door.open_session(session_id)
        self.elsewhere = ""  # until the next pulse says
        self._leave(status.session_id, runner, session_id)  # before the chat is redrawn

    async def new(self) -> None:
        leaving, runner = self.door.status().session_id, self.screen.turns
        await self.door.new_session()
        self.elsewhere = ""
        self._leave(leaving, runner, None)

    async def cycle(self, step: int) -> None:
        """ctrl+pageup / ctrl+pagedown: the previous / next session in the browser's order
        (newest first), wrapping around."""
        if self.birdie is None:
            self.not_running()
            return
        ids = [row.id for row in self.birdie.session_rows()]  # the browser's order
        if len(ids) < 2:
            self.screen.notify("No other session yet — ctrl+n starts one.", timeout=2)
            return
        current = self.birdie.status().session_id
        target = ids[(ids.index(current) + step) % len(ids)]
        await self.switch(target)
        self.screen.notify(f"Session {target}", timeout=1.5)

    def open_browser(self) -> None:
        from birdie_tui.tui.screens.session_browser import SessionBrowser

        if self.birdie is None:
            self.not_running()
            return

        def chosen(result: tuple[str, str | None] | None) -> None:
            if result is None:
                return
            action, session_id = result
            if action == "switch" and session_id:
                self.run(self.switch(session_id))
            elif action == "new":
                self.run(self.new())

        self.screen.app.push_screen(SessionBrowser(self), chosen)

    # ------------------------------------------------------------ SessionActions (browser)
    def session_rows(self) -> list[SessionRow]:
        busy = self.busy()  # a session with a running turn says so in its row
        return [replace(row, busy=busy[row.id]) if row.id in busy else row
                for row in self.door.session_rows()]

    def agent_runs(self, session_id: str) -> list[AgentRunRow]:
        """A session's sub-agent runs, for the browser's detail line."""
        return self.door.agent_runs(session_id)

    async def rename_session(self, session_id: str, title: str) -> None:
        self.door.rename_session(session_id, title)

    async def delete_session(self, session_id: str) -> None:
        if session_id == self.door.status().session_id:
            await self.screen.turns.cancel()
        await self.door.delete_session(session_id)
        self.screen.notify(f"Deleted session {session_id}", timeout=2)
