"""The Birdie Textual app: layout, keys, and reactions to the engine's messages.

The engine (LangGraph, SDKs) is imported in a worker after the first paint; until it is ready the
composer already takes input and queues it. Session handling lives in `sessions.py`, slash
commands in `slash.py`, palette commands in `commands.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static, TabbedContent, TabPane

from birdie_tui.text import one_line
from birdie_tui.tui.boot import Boot
from birdie_tui.tui.commands import BirdieCommands
from birdie_tui.tui.keymap import apply_keymap
from birdie_tui.tui.main_screen import MainScreen
from birdie_tui.tui.messages import EngineEvent
from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.sessions import SessionControl
from birdie_tui.tui.skill_watch import SkillWatch
from birdie_tui.tui.slash import SLASH_COMMANDS, SlashCommands
from birdie_tui.tui.themes import register_themes
from birdie_tui.tui.turn_view import TurnView
from birdie_tui.tui.views import broken_files, skill_rows, token_view
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar
from birdie_tui.tui.widgets.status_bar import StatusBar

# Widths at which the side panes fold so the chat keeps room to read as prose: the context
# panel goes first, then the skills sidebar. Forced open (ctrl+b / ctrl+t), they shrink instead.
FOLD_PANEL = 140
FOLD_SIDEBAR = 110
CHAT_MIN = 44
SIDEBAR_WIDTH = 30
PANEL_WIDTH = 38
SIDE_MIN = 16
DEFAULT_THEME = "birdie-dark"


class BirdieApp(App[int]):
    CSS_PATH = "birdie.tcss"
    TITLE = "birdie"
    COMMANDS = App.COMMANDS | {BirdieCommands}
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel", id="app.cancel_turn"),
        Binding("ctrl+s", "sessions", "Sessions", id="app.sessions"),
        Binding("ctrl+n", "new_session", "New", id="app.new_session"),
        Binding("ctrl+o", "focus_skills", "Skills", id="app.focus_skills"),
        Binding("pageup", "scroll_chat('page_up')", "Scroll up", id="app.chat_page_up",
                show=False),
        Binding("pagedown", "scroll_chat('page_down')", "Scroll down", id="app.chat_page_down",
                show=False),
        Binding("ctrl+up", "scroll_chat('up')", "Scroll up", id="app.chat_up", show=False),
        Binding("ctrl+down", "scroll_chat('down')", "Scroll down", id="app.chat_down",
                show=False),
        Binding("ctrl+pageup", "cycle_session(-1)", "Prev session", id="app.prev_session",
                show=False),
        Binding("ctrl+pagedown", "cycle_session(1)", "Next session", id="app.next_session",
                show=False),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", id="app.toggle_sidebar", show=False),
        Binding("ctrl+t", "toggle_panel", "Panel", id="app.toggle_panel", show=False),
        Binding("ctrl+p", "command_palette", "Palette", id="app.palette", show=False),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]

    def __init__(self, args: argparse.Namespace, *, environ: Mapping[str, str] | None = None,
                 cursor_blink: bool = True):
        super().__init__()
        self.args = args
        self.environ = dict(os.environ if environ is None else environ)
        self.cursor_blink = cursor_blink
        self.engine: Any = None
        self.settings: Any = None
        self.settings_paths: Any = None
        self.ready = asyncio.Event()
        self.pending: list[str] = []  # typed before the engine was ready
        self.start_problem: str | None = None  # e.g. a missing API key (shown once booted)
        self.booting = Boot(self)
        self.resume_hint: str | None = None  # printed after exit: how to come back
        self.skill_marks: dict[str, str] = {}
        self.sessions = SessionControl(self)
        self.skill_watch = SkillWatch(self)
        self.slash = SlashCommands(self)
        # the running turn
        self.turn_worker: Any = None
        self.turn = TurnView(self)
        self.sidebar_forced: bool | None = None  # ctrl+b overrides the width rule
        self.panel_forced: bool | None = None
        self._theme_warnings = register_themes(self, self._theme_dirs())
        self.theme = self._initial_theme()

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="body"):
            yield SkillSidebar(id="skills")
            with Vertical(id="center"):
                yield ChatLog(id="chat")
                yield Composer(id="composer", cursor_blink=self.cursor_blink)
                yield Static("", id="composer-hint", markup=False)
            with TabbedContent(id="panels"):
                with TabPane("Context", id="tab-context"):
                    yield ContextPanel(id="context")
                with TabPane("Tokens", id="tab-tokens"):
                    yield TokenPanel(id="tokens")
        yield Footer(compact=True)

    def get_default_screen(self) -> MainScreen:
        return MainScreen(id="_default")

    def on_mount(self) -> None:
        self.query_one(Composer).set_commands(SLASH_COMMANDS)
        self.query_one(Composer).focus()
        self._apply_width(self.size.width)
        self.show_engine_state("starting…", busy=True)
        for warning in self._theme_warnings:
            self.notify(warning, title="Theme", severity="warning")
        # After the first frame: the boot thread's imports would contend with the first layout.
        self.call_after_refresh(self.boot)

    def on_resize(self, event: Any) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        show_sidebar = self.sidebar_forced if self.sidebar_forced is not None \
            else width >= FOLD_SIDEBAR
        show_panel = self.panel_forced if self.panel_forced is not None else width >= FOLD_PANEL
        sidebar, panel = self.query_one(SkillSidebar), self.query_one("#panels")
        sidebar.display, panel.display = show_sidebar, show_panel
        sidebar.styles.width, panel.styles.width = side_widths(width, show_sidebar, show_panel)

    def action_focus_skills(self) -> None:
        """The skill list from the keyboard: ↑/↓ move, space toggles, esc goes back."""
        if not self.query_one(SkillSidebar).display:
            self.sidebar_forced = True
            self._apply_width(self.size.width)
        self.query_one(SkillSidebar).focus_list()

    def action_scroll_chat(self, how: str) -> None:
        """Scroll the conversation without leaving the composer."""
        chat = self.query_one(ChatLog)
        if how in ("page_up", "page_down"):
            getattr(chat, f"scroll_{how}")(animate=False)
        else:
            chat.scroll_relative(y=-3 if how == "up" else 3, animate=False)

    def action_toggle_sidebar(self) -> None:
        sidebar = self.query_one(SkillSidebar)
        self.sidebar_forced = not sidebar.display
        self._apply_width(self.size.width)

    def action_toggle_panel(self) -> None:
        self.panel_forced = not self.query_one("#panels").display
        self._apply_width(self.size.width)

    # ------------------------------------------------------------------ themes
    def _theme_dirs(self) -> list[Path]:
        from birdie_tui.skills.bundled import bundled_themes_dir

        home = Path(self.environ.get("BIRDIE_HOME", "~/.birdie")).expanduser()
        return [bundled_themes_dir(), home / "themes"]

    def _initial_theme(self) -> str:
        wanted = self.args.theme or _saved_theme(self.environ) or DEFAULT_THEME
        if wanted in self.available_themes:
            return wanted
        self._theme_warnings.append(f"unknown theme {wanted!r}; using {DEFAULT_THEME}")
        return DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"

    def set_theme(self, name: str) -> bool:
        if name not in self.available_themes:
            return False
        self.theme = name  # saved by watch_theme
        return True

    def watch_theme(self, name: str) -> None:
        """Every way of choosing a theme (/theme, our palette, Textual's theme picker) saves."""
        if self.settings is not None and self.settings.theme != name:
            self.settings.theme = name
            self.save_settings()

    def save_settings(self) -> None:
        from birdie_tui.store.settings import save_settings

        try:
            save_settings(self.settings_paths, self.settings)
        except OSError as exc:
            self.notify(f"could not save settings: {exc}", severity="error")

    # ------------------------------------------------------------------ engine boot
    @work(group="engine-boot", exclusive=True, exit_on_error=False)
    async def boot(self, retry: bool = False) -> None:
        chat = self.query_one(ChatLog)
        self.show_engine_state("starting…", busy=True)
        started = await self.booting.start(session_id=self.args.session_id, retry=retry)
        if started is None:
            chat.add_error(f"Birdie could not start: {self.booting.error}. What you type is "
                           "kept. ctrl+n or /retry tries again · ctrl+q quits.")
            self.show_engine_state("not started", busy=False)
            return
        engine, opened = started
        self.engine = engine
        await self.sessions.show_current(new=opened.new)
        for problem in self.booting.problems:  # after show_current, which redraws the chat
            chat.add_error(problem)
        if self.start_problem:
            chat.add_error(self.start_problem)
        self.ready.set()
        self.call_later(self.send_pending)
        self.skill_watch.start()

    def retry_boot(self) -> bool:
        """After a failed start: try again with a new session. False if nothing failed."""
        if not self.booting.failed:
            return False
        self.boot(retry=True)
        return True

    def make_engine(self, engine_mod: Any) -> Any:
        from birdie_tui.providers.config import ConfigError, ProviderConfig

        options = engine_mod.EngineOptions(
            user=self.args.user, skills_dirs=self.args.skills_dir,
            config_file=self.args.config, environ=self.environ)
        try:
            return engine_mod.Engine(options)
        except ConfigError as exc:
            # A missing key is a message, not a dead app: run offline and say why.
            self.start_problem = f"{exc} — using the offline model instead."
            options.provider = ProviderConfig(vendor="offline")
            return engine_mod.Engine(options)

    async def load_settings(self, engine: Any) -> None:
        from birdie_tui.store.settings import load_settings

        self.settings, warnings = load_settings(engine.paths)
        self.settings_paths = engine.paths  # saving must not wait for the session to open
        await asyncio.sleep(0)  # let announced recoveries arrive first: each is shown once
        warnings = [*warnings, *apply_keymap(self, self.settings.keymap)]
        for warning in warnings:
            if warning not in self.booting.heard:
                self.notify(warning, title="Settings", severity="warning")
        self.query_one(ChatLog).set_tool_output_mode(self.settings.tool_output)

    def send_pending(self) -> None:
        """What the user sent before Birdie was running, in order."""
        queued, self.pending = self.pending, []
        for text in queued:
            self.submit(text)

    # ------------------------------------------------------------------ refreshing panels
    def refresh_skills(self) -> None:
        if self.engine is not None:
            self.query_one(SkillSidebar).set_skills(skill_rows(self.engine, self.skill_marks),
                                                    broken_files(self.engine))

    def show_engine_state(self, label: str, *, busy: bool) -> None:
        """The status bar while no engine runs (starting, or a start that failed)."""
        self.query_one(StatusBar).update_status(
            model=label, session_id="", title=None, context_tokens=0, context_window=None,
            session_in=0, session_out=0, busy=busy)

    def refresh_status(self, busy: bool | None = None) -> None:
        if self.engine is None:
            return
        busy = self.turn_running if busy is None else busy
        view = token_view(self.engine, calls=self.turn.calls, live_in=self.turn.live_in,
                          live_out=self.turn.live_out)
        meta = self.engine.session
        self.query_one(StatusBar).update_status(
            model=self.engine.model_label, session_id=meta.id if meta else "",
            title=meta.title if meta else None, context_tokens=view.context_tokens,
            context_window=view.context_window, session_in=view.session_in,
            session_out=view.session_out, busy=busy)
        self.query_one(TokenPanel).show(view)

    # ------------------------------------------------------------------ input
    @on(Composer.Submitted)
    def on_composer_submitted(self, event: Composer.Submitted) -> None:
        self.submit(event.text)

    @on(Composer.Hint)
    def on_composer_hint(self, event: Composer.Hint) -> None:
        self.query_one("#composer-hint", Static).update(event.text)

    def submit(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        # Whatever was just sent (message or command) and what it brings is shown, even if
        # the user had scrolled up to read.
        self.query_one(ChatLog).follow()
        if text.startswith("/"):
            self.run_slash(text)
            return
        if self.engine is None:
            self.pending.append(text)
            self.query_one(ChatLog).add_user(text)
            if self.booting.failed:
                self.query_one(ChatLog).add_notice(
                    "Birdie is not running, so this waits: ctrl+n or /retry tries to start "
                    "it again.")
            else:
                self.query_one(ChatLog).add_notice("Starting up — your message will be sent "
                                                   "as soon as Birdie is ready.")
            return
        if self.turn_running:
            self.query_one(Composer).load_text(text)  # keep what they typed
            self.notify("Birdie is still answering — Esc cancels the running turn.",
                        severity="warning")
            return
        self.start_turn(text)

    @work(group="slash", exit_on_error=False)
    async def run_slash(self, line: str) -> None:
        name = line.split()[0]
        if name == "/retry" and self.retry_boot():
            return
        if name not in ("/quit", "/help", "/clear") and not await self.booting.wait():
            self.notify(f"{name} needs Birdie running: ctrl+n or /retry starts it again.",
                        severity="warning")
            return
        try:
            await self.slash.run(line)
        except Exception as exc:  # noqa: BLE001 - a command failure is a message
            self.query_one(ChatLog).add_error(f"{line.split()[0]}: {one_line(exc)}")

    # ------------------------------------------------------------------ turns
    @property
    def turn_running(self) -> bool:
        return self.turn_worker is not None and not self.turn_worker.is_finished

    def start_turn(self, text: str) -> None:
        chat = self.query_one(ChatLog)
        chat.add_user(text)
        self.turn.reset()
        self.turn_worker = self.run_turn(text)
        self.refresh_status(busy=True)

    @work(group="agent-turn", exclusive=True, exit_on_error=False)
    async def run_turn(self, text: str) -> None:
        approver = self.approve_always if self.args.auto_approve else self.ask_approval
        from birdie_tui.agent.events import TurnCancelled, TurnError

        try:
            async for event in self.engine.run_turn(text, approver=approver):
                self.post_message(EngineEvent(event))
        except asyncio.CancelledError:
            self.post_message(EngineEvent(TurnCancelled()))
            raise
        except Exception as exc:  # noqa: BLE001 - engine bugs become a block, not an exit
            self.post_message(EngineEvent(TurnError(one_line(exc))))
        finally:
            self.call_later(self._turn_settled)

    async def approve_always(self, call: dict[str, Any], skill: str) -> bool:
        return True

    async def ask_approval(self, call: dict[str, Any], skill: str) -> bool:
        """An approval is a future the modal resolves (the engine awaits it)."""
        decided: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(call["name"], skill, dict(call.get("args") or {}))

        def resolve(result: bool | None) -> None:
            if not decided.done():
                decided.set_result(bool(result))

        self.push_screen(screen, resolve)
        try:
            return await decided
        except asyncio.CancelledError:
            if screen.is_active:
                screen.dismiss(False)
            raise

    async def cancel_turn(self) -> bool:
        """Cancel the running turn and wait until its history is repaired."""
        worker = self.turn_worker
        if worker is None or worker.is_finished:
            return False
        worker.cancel()
        while not worker.is_finished:  # the engine repairs the history before it finishes
            await asyncio.sleep(0.01)
        return True

    async def action_cancel_turn(self) -> None:
        composer = self.query_one(Composer)
        if self.screen is self.screen_stack[0] and self.focused is not composer:
            composer.focus()  # esc leaves the skill list (or a tool block) first
            return
        if await self.cancel_turn():
            self.notify("Turn cancelled.", timeout=2)

    async def on_engine_event(self, message: EngineEvent) -> None:
        await self.turn.handle(message.event)

    def _turn_settled(self) -> None:
        # The engine has recorded the turn in the session file: its totals are now the truth.
        self.turn.live_in = self.turn.live_out = 0
        self.refresh_status(busy=False)
        self.refresh_skills()  # MCP servers may have started (tool counts) or failed
        self.skill_watch.notify_mcp_failures()

    # ------------------------------------------------------------------ skills
    @on(SkillSidebar.Toggled)
    def on_skill_toggled(self, event: SkillSidebar.Toggled) -> None:
        self.toggle_skill(event.name, event.enabled)

    def toggle_skill(self, name: str, enabled: bool | None = None) -> None:
        if self.engine is None:
            return
        skill = self.engine.registry.get(name)
        if skill is None:
            self.notify(f"unknown skill {name!r}", severity="error")
            return
        enabled = (not self.engine.is_enabled(skill)) if enabled is None else enabled
        self.engine.set_skill_enabled(skill.name, enabled)
        self.refresh_skills()
        self.notify(f"{skill.name} {'enabled' if enabled else 'disabled'} for this session",
                    timeout=2)

    # ------------------------------------------------------------------ sessions (keys)
    def action_sessions(self) -> None:
        self.sessions.open_browser()

    def action_new_session(self) -> None:
        if self.engine is None:
            if not self.retry_boot():
                self.notify("Still starting up…", timeout=2)
            return
        self.sessions.run(self.sessions.new())

    def action_cycle_session(self, step: int) -> None:
        self.sessions.run(self.sessions.cycle(step))

    async def on_unmount(self) -> None:
        self.booting.stop_listening()
        if self.engine is not None:
            self.resume_hint = self.sessions.resume_hint()
            await self.engine.aclose()


def side_widths(width: int, show_sidebar: bool, show_panel: bool) -> tuple[int, int]:
    """Side pane widths that leave the chat at least `CHAT_MIN` columns when it can."""
    sidebar, panel = SIDEBAR_WIDTH, PANEL_WIDTH
    spare = width - CHAT_MIN
    if show_sidebar and show_panel and sidebar + panel > spare:
        sidebar = max(SIDE_MIN, spare * SIDEBAR_WIDTH // (SIDEBAR_WIDTH + PANEL_WIDTH))
        panel = max(SIDE_MIN, spare - sidebar)
    elif show_sidebar and not show_panel:
        sidebar = max(SIDE_MIN, min(sidebar, spare))
    elif show_panel and not show_sidebar:
        panel = max(SIDE_MIN, min(panel, spare))
    return sidebar, panel


def _saved_theme(environ: Mapping[str, str]) -> str | None:
    """The theme from settings.json, read without pydantic so the first paint stays fast."""
    import json

    path = environ.get("BIRDIE_SETTINGS_FILE") or str(
        Path(environ.get("BIRDIE_HOME", "~/.birdie")).expanduser() / "settings.json")
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8")).get("theme")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None
