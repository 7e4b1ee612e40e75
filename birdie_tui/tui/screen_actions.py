"""What the main screen does on a key or for a command: the `action_*` methods of its bindings
and the `CommandUI` side of the command context (a mixin of `MainScreen`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual.actions import SkipAction
from textual.widgets import TabbedContent

from birdie_tui.tui.cmds.approvals import MODE_WORDS
from birdie_tui.tui.copying import CopyText, copied_toast
from birdie_tui.tui.screens.input_history import InputHistoryScreen
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
from birdie_tui.tui.widgets.panels.context_runs import AgentRuns
from birdie_tui.tui.widgets.search_bar import SearchBar
from birdie_tui.tui.widgets.skills.agent_section import AgentSection
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from birdie_tui.service import Birdie
    from birdie_tui.service.rows import UserTurn
    from birdie_tui.tui.sessions import SessionControl
    from birdie_tui.tui.turns import TurnRunner

    _ScreenBase = Screen[None]  # what the mixin is mixed into, for the type checker
else:
    _ScreenBase = object

DOUBLE_PRESS = 0.6  # seconds between two Esc that open the rewind picker


class ScreenActions(_ScreenBase):
    """Mixed into `MainScreen` (which provides `birdie`, `turns`, `sessions`, `chat`…)."""

    app: Any  # the BirdieApp (its own methods, which Textual's `App` type does not name)
    birdie: Birdie | None
    turns: TurnRunner
    sessions: SessionControl
    sidebar_forced: bool | None
    panel_forced: bool | None

    if TYPE_CHECKING:
        def apply_width(self, width: int) -> None: ...  # MainScreen's layout rule
        def run_line(self, line: str) -> None: ...  # MainScreen: a slash command

    @property
    def chat(self) -> ChatLog:
        return self.query_one(ChatLog)

    # ------------------------------------------------------------------ key actions
    async def action_cancel_turn(self) -> None:
        composer = self.query_one(Composer)
        if self.app.screen is self and self.focused is not composer:
            composer.focus()  # esc leaves the skill list (or a tool block) first
            return
        if not self.turns.running:
            raise SkipAction()  # nothing to cancel: the next Esc binding (the picker) takes it
        if await self.turns.cancel():
            self.notify("Turn cancelled.", timeout=2)

    _escaped_at = 0.0  # the last Esc in an idle, empty composer (see `action_rewind_picker`)

    def action_rewind_picker(self) -> None:
        """Esc pressed twice quickly in an empty composer while no turn runs (as in Claude
        Code) opens the rewind picker (it gets Esc only when there is no turn to cancel)."""
        composer = self.query_one(Composer)
        idle = (self.app.screen is self and self.focused is composer and not composer.text
                and not self.turns.running and self.birdie is not None)
        now = time.monotonic()
        first, self._escaped_at = self._escaped_at, now if idle else 0.0
        if not idle or now - first > DOUBLE_PRESS:
            raise SkipAction()  # a lone Esc with nothing to cancel does nothing
        self._escaped_at = 0.0
        self.run_line("/rewind")

    def action_sessions(self) -> None:
        self.sessions.open_browser()

    def action_runs(self) -> None:
        self.open_runs()

    def action_new_session(self) -> None:
        if self.birdie is None:
            if not self.app.retry_boot():
                self.notify("Still starting up…", timeout=2)
            return
        self.sessions.run(self.sessions.new())

    def action_cycle_session(self, step: int) -> None:
        self.sessions.run(self.sessions.cycle(step))

    def action_cycle_approval_mode(self) -> None:
        """ask → auto-approve → read-only, shown in #status (the door's StatusChanged)."""
        if self.birdie is None:
            self.sessions.not_running()
            return
        mode = self.birdie.set_approval_mode(None)
        self.notify(f"Approvals: {mode} — {MODE_WORDS.get(mode, '')}", timeout=3)

    def apply_start_mode(self) -> None:
        """`--auto-approve` starts Birdie in auto mode: once per start (a session opened later
        keeps what the user chose since)."""
        if self.birdie is not None and self.app.args.auto_approve \
                and getattr(self, "_mode_set_for", None) is not self.birdie:
            self._mode_set_for = self.birdie
            self.birdie.set_approval_mode("auto")

    def action_focus_skills(self) -> None:
        """The skill list from the keyboard: ↑/↓ move, space toggles, esc goes back."""
        sidebar = self.query_one(SkillSidebar)
        if not sidebar.display:
            self.sidebar_forced = True
            self.apply_width(self.app.size.width)
        sidebar.focus_list()

    def action_focus_context(self) -> None:
        """The context panel from the keyboard: ←/→ turns, shift+←/→ calls, ↑/↓ segments,
        esc goes back."""
        panels = self.query_one("#panels", TabbedContent)
        if not panels.display:
            self.panel_forced = True
            self.apply_width(self.app.size.width)
        panels.active = "tab-context"
        if not self.query_one(ContextPanel).focus_list():
            self.notify("Nothing in the context panel yet.", timeout=2)

    def action_scroll_chat(self, how: str) -> None:
        """Scroll the conversation without leaving the composer."""
        if how in ("page_up", "page_down"):
            getattr(self.chat, f"scroll_{how}")(animate=False)
        else:
            self.chat.scroll_relative(y=-3 if how == "up" else 3, animate=False)

    def action_copy_reply(self) -> None:
        """The last reply's Markdown to the clipboard (as `/copy`)."""
        self.run_line("/copy")

    def on_copy_text(self, message: CopyText) -> None:
        """A click on a "copy" in the chat."""
        self.copy_text(message.text, message.what)

    def copy_text(self, text: str, what: str) -> None:
        """To the terminal's clipboard (OSC 52, see `tui/copying.py`), and a toast."""
        self.app.copy_to_clipboard(text)
        self.notify(copied_toast(what, text), timeout=3)

    def action_search(self) -> None:
        """ctrl+f: the search bar over the conversation (widgets/search_bar.py)."""
        self.query_one(SearchBar).open()

    def action_pick_input(self) -> None:
        """ctrl+r in the composer (its binding `composer.search_history`)."""
        self.run_worker(self._pick_input(), group="input-history", exit_on_error=False)

    async def _pick_input(self) -> None:
        """An earlier input of any session into the composer, not sent. The door's list
        (every session, every process) first, then this composer's own (what was typed before
        Birdie was running, a session's messages from before the file)."""
        composer = self.query_one(Composer)
        kept = self.birdie.input_history() if self.birdie is not None else []
        entries = list(dict.fromkeys([*kept, *reversed(composer.input_history)]))
        chosen = await self.app.push_screen_wait(InputHistoryScreen(entries))
        if chosen is not None:
            composer.load_text(chosen)
            composer.move_cursor(composer.document.end)
        composer.focus()

    def action_toggle_sidebar(self) -> None:
        self.sidebar_forced = not self.query_one(SkillSidebar).display
        self.apply_width(self.app.size.width)

    def action_toggle_panel(self) -> None:
        self.panel_forced = not self.query_one("#panels").display
        self.apply_width(self.app.size.width)

    # ------------------------------------------------------------------ skills
    def on_skill_sidebar_toggled(self, event: SkillSidebar.Toggled) -> None:
        self.toggle_skill(event.name, event.enabled)

    def toggle_skill(self, name: str, enabled: bool | None = None) -> None:
        if self.birdie is None:
            return
        try:
            row = self.birdie.set_skill(name, enabled)
        except self.app.birdie_error as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(f"{row.name} {'enabled' if row.enabled else 'disabled'} for this session",
                    timeout=2)

    # ------------------------------------------------------------------ sub-agents
    def on_agent_section_toggled(self, event: AgentSection.Toggled) -> None:
        self.toggle_agent(event.name, event.enabled)

    def toggle_agent(self, name: str, enabled: bool | None = None) -> None:
        if self.birdie is None:
            return
        try:
            row = self.birdie.set_agent(name, enabled)
        except self.app.birdie_error as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(f"Agent {row.name} {'enabled' if row.enabled else 'disabled'} for this "
                    "session", timeout=2)

    def show_agent_runs(self) -> None:
        """The shown session's sub-agent runs, under the context panel's call."""
        if self.birdie is not None:
            self.query_one(ContextPanel).set_agent_runs(self.birdie.agent_runs())

    def on_agent_runs_picked(self, event: AgentRuns.Picked) -> None:
        self.run_worker(self._open_child(event.child, event.agent), group="contexts",
                        exclusive=True, exit_on_error=False)

    async def _open_child(self, child: str | None, agent: str) -> None:
        """A child's model calls in the context panel (None: the session's own again)."""
        if self.birdie is None:
            return
        panel = self.query_one(ContextPanel)
        if child is None:
            panel.set_records(await self.birdie.contexts(), keep=False)
            return
        try:
            records = await self.birdie.child_contexts(child)
        except self.app.birdie_error as exc:
            self.notify(str(exc), severity="error")
            return
        panel.show_child(child, agent, records)

    def switch_to(self, session_id: str) -> None:
        """The palette's "switch to session": built only when chosen, so an unchosen hit
        leaves no coroutine behind."""
        self.sessions.run(self.sessions.switch(session_id))

    # ------------------------------------------------------------------ CommandUI
    @property
    def turn_running(self) -> bool:
        return self.turns.running

    def say(self, text: str, *, markdown: bool = True) -> None:
        self.chat.add_notice(text, markdown=markdown)

    def error(self, text: str) -> None:
        self.chat.add_error(text)

    def toast(self, text: str, *, severity: SeverityLevel = "information",
              timeout: float | None = None) -> None:
        self.notify(text, severity=severity, timeout=timeout)

    async def confirm(self, question: str) -> bool:
        from birdie_tui.tui.screens.confirm import ConfirmScreen

        return bool(await self.app.push_screen_wait(ConfirmScreen(question)))

    async def clear_chat(self) -> None:
        await self.chat.clear_log()

    def set_tool_output(self, mode: str) -> None:
        self.chat.set_tool_output_mode(mode)
        self.app.save_setting(tool_output=mode)

    def set_agent_output(self, mode: str) -> None:
        self.chat.set_agent_output_mode(mode)
        self.app.save_setting(agent_output=mode)

    def theme_names(self) -> list[str]:
        return list(self.app.available_themes)

    def current_theme(self) -> str:
        return str(self.app.theme)

    def set_theme(self, name: str) -> bool:
        if name not in self.app.available_themes:
            return False
        self.app.theme = name  # saved by the app's theme watcher
        return True

    def open_browser(self) -> None:
        self.sessions.open_browser()

    def open_runs(self) -> None:
        """The runs view; the run picked there opens its session (a pending approval of it
        is then asked, as for any session opened)."""
        from birdie_tui.tui.screens.runs import RunsScreen

        if self.birdie is None:
            self.sessions.not_running()
            return

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.sessions.run(self.sessions.switch(session_id))

        self.app.push_screen(RunsScreen(self.birdie), chosen)

    async def new_session(self) -> None:
        await self.sessions.new()

    async def open_session(self, session_id: str) -> None:
        await self.sessions.switch(session_id)

    async def delete_session(self, session_id: str) -> None:
        await self.sessions.delete_session(session_id)

    async def ask_pending_approvals(self) -> None:
        """`/approvals ask`: the open session's pending approvals, asked again."""
        await self.turns.ask_pending()

    def edit_message(self, text: str) -> None:
        composer = self.query_one(Composer)
        composer.load_text(text)
        composer.move_cursor(composer.document.end)
        composer.focus()

    async def pick_message(self, turns: Sequence[UserTurn], action: str
                           ) -> tuple[str, int] | None:
        from birdie_tui.tui.screens.rewind_picker import RewindPicker

        picked = await self.app.push_screen_wait(
            RewindPicker(turns, default="fork" if action == "fork" else "rewind"))
        return picked if isinstance(picked, tuple) else None

    def rewatch_skills(self) -> None:
        self.app.watch_skill_folders()

    def quit(self) -> None:
        self.sessions.quit()
