"""The Birdie Textual app: boot, settings, themes, keymap, and the main screen.

Birdie (the engine behind the front door, `birdie_tui.service`) starts in a worker after the
first paint; until it is ready the composer already takes input and queues it. Layout, keys
and the dispatch of Birdie's events belong to `MainScreen`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual import work
from textual.binding import Binding

from birdie_tui.cli.signals import SignalWatch, exit_status
from birdie_tui.screen_text import clean
from birdie_tui.service import BirdieError
from birdie_tui.text import one_line
from birdie_tui.service.first_paint import saved_theme, theme_dirs
from birdie_tui.tui.boot import Boot, DoorFactory
from birdie_tui.tui import collector
from birdie_tui.tui.frame_timing import BatchFrameApp
from birdie_tui.tui.keymap import apply_keymap, key_for
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar
from birdie_tui.tui.main_screen import MainScreen
from birdie_tui.tui.messages import EngineEvent
from birdie_tui.tui.palette import BirdieCommands
from birdie_tui.tui.terminal_guard import install as guard_the_terminal
from birdie_tui.tui.themes import register_themes

if TYPE_CHECKING:
    from birdie_tui.service import ChangeEvent

guard_the_terminal()  # no frame carries a control character from text (see terminal_guard)

DEFAULT_THEME = "birdie-dark"


class BirdieApp(BatchFrameApp[int]):
    CSS_PATH = "birdie.tcss"
    TITLE = "birdie"
    COMMANDS = BatchFrameApp.COMMANDS | {BirdieCommands}
    # The chat's keys are the main screen's; these two work on every screen.
    BINDINGS = [
        Binding("ctrl+p", "command_palette", "Palette", id="app.palette", show=False),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]
    birdie_error = BirdieError  # what the front door raises for a user's mistake

    def __init__(self, args: argparse.Namespace, *, environ: Mapping[str, str] | None = None,
                 cursor_blink: bool = True, door_factory: DoorFactory | None = None):
        super().__init__()
        self.args = args
        self.environ = dict(os.environ if environ is None else environ)
        self.main = MainScreen(id="_default", cursor_blink=cursor_blink)
        self.ready = asyncio.Event()  # Birdie has started and its first session is shown
        self.booting = Boot(self, door_factory)  # None: the door argv names
        self.resume_hint: str | None = None  # printed after exit: how to come back
        self._theme_warnings = register_themes(self, theme_dirs(self.environ))
        self.theme = self._initial_theme()
        self.signals = SignalWatch(self.terminate_on_signal)

    @property
    def birdie(self) -> Any:
        return self.main.birdie

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast: its text often quotes an error, a skill or a title, so it is never
        markup (a `[@click]` would be an action) and its escape sequences are neutralised."""
        super().notify(clean(message), title=clean(title), severity=severity, timeout=timeout,
                       markup=False)

    async def action_quit(self) -> None:  # with turns running, asked once first
        self.main.sessions.quit()
    def get_default_screen(self) -> MainScreen:
        return self.main

    def on_mount(self) -> None:
        self.signals.install()
        for warning in self._theme_warnings:
            self.notify(warning, title="Theme", severity="warning")
        # After the first frame: the boot thread's imports would contend with the first layout.
        self.call_after_refresh(self.boot)

    def terminate_on_signal(self, signum: int) -> None:
        """SIGTERM/SIGHUP: the running turn is cancelled as Esc does (its tools killed, its
        history repaired), then the app exits with 128+signum."""
        async def leave() -> None:
            try:
                await self.main.turns.cancel()
            finally:
                self.exit(exit_status(signum))

        self.run_worker(leave(), group="signal-exit", exclusive=True, exit_on_error=False)

    def heard(self, event: ChangeEvent) -> None:
        """A change event from the front door (any thread): to the main screen's queue."""
        self.main.post_message(EngineEvent(event))

    # ------------------------------------------------------------------ boot
    @work(group="engine-boot", exclusive=True, exit_on_error=False)
    async def boot(self, retry: bool = False) -> None:
        main = self.main
        main.show_engine_state("starting…", busy=True)
        started = await self.booting.start(retry=retry)
        if started is None:
            main.chat.add_error(f"Birdie could not start: {self.booting.error}. What you type "
                                "is kept. ctrl+n or /retry tries again · ctrl+q quits.")
            main.show_engine_state("not started", busy=False)
            # The skills it read are still listed: a failed start is not "no skills".
            skills, broken = self.booting.skills
            main.query_one(SkillSidebar).set_skills(list(skills), list(broken))
            return
        main.birdie = self.booting.birdie
        self._apply_settings(started.warnings)
        await main.sessions.show_current(new=started.new)
        for problem in started.problems:  # after show_current, which redraws the chat
            main.chat.add_error(problem)
        # A message typed ahead is not kept waiting for the boot garbage to be collected.
        collector.boot_done(collect=not main.pending)
        self.ready.set()
        main.call_later(main.send_pending)
        self.watch_skill_folders()

    @property
    def boot_failed(self) -> bool:
        return self.booting.failed

    def retry_boot(self) -> bool:
        """After a failed start: try again with a new session. False if nothing failed."""
        if not self.booting.failed:
            return False
        self.boot(retry=True)
        return True

    async def wait_started(self) -> bool:
        """Wait for the current start attempt; True when Birdie is running."""
        return await self.booting.wait()

    def _apply_settings(self, warnings: tuple[str, ...]) -> None:
        settings = self.birdie.settings()
        for warning in [*warnings, *apply_keymap(self, dict(settings.keymap))]:
            self.notify(warning, title="Settings", severity="warning")
        self.main.chat.set_tool_output_mode(settings.tool_output)
        self.main.chat.set_agent_output_mode(settings.agent_output)

    def watch_skill_folders(self) -> None:
        """Follow the skill folders for the app's life (unless BIRDIE_WATCH=0); called again
        when a folder joins them (`/skill new`), it replaces the watcher."""
        if self.environ.get("BIRDIE_WATCH", "1").strip().lower() in ("0", "off", "no"):
            return

        async def watch() -> None:
            try:
                await self.birdie.watch_skills()
            except Exception as exc:  # noqa: BLE001 - reload is a convenience, never fatal
                self.notify(f"Live reload stopped: {one_line(exc)}. /skill reload still works.",
                            title="Skills", severity="warning", timeout=10)

        self.run_worker(watch(), group="skill-watcher", exclusive=True, exit_on_error=False)

    # ------------------------------------------------------------------ themes and settings
    def _initial_theme(self) -> str:
        wanted = self.args.theme or saved_theme(self.environ) or DEFAULT_THEME
        if wanted in self.available_themes:
            return wanted
        self._theme_warnings.append(f"unknown theme {wanted!r}; using {DEFAULT_THEME}")
        return DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"

    def watch_theme(self, name: str) -> None:
        """Every way of choosing a theme (/theme, our palette, Textual's theme picker) saves."""
        if self.birdie is not None and self.birdie.settings().theme != name:
            self.save_setting(theme=name)

    def key_for(self, binding_id: str) -> str:
        """The key a binding answers to now (the user's keymap applied), as text to show."""
        return key_for(self, binding_id)

    def save_setting(self, **changes: Any) -> None:
        if self.birdie is None:
            return
        try:
            self.birdie.save_settings(**changes)
        except BirdieError as exc:
            self.notify(str(exc), severity="error")

    async def on_unmount(self) -> None:
        collector.app_closing()
        self.signals.remove()
        if self.birdie is not None and not self.signals.hung_up:  # no terminal to print on
            from birdie_tui.resume import resume_line

            command = self.birdie.resume_command()  # None: nothing was ever sent
            self.resume_hint = resume_line(command) if command else None
        await self.booting.stop()
