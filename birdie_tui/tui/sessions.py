"""Sessions from the screen: switch, new, cycle, delete, the browser, and replaying the open
session into the chat when the front door says one was opened (its `session` event)."""

from __future__ import annotations

import gc
import re

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from birdie_tui.service.rows import SessionRow
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

if TYPE_CHECKING:
    from birdie_tui.service import Birdie
    from birdie_tui.tui.main_screen import MainScreen


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
        if items:
            # Building hundreds of widgets set off ~6 full collections (~1 s for a 5,000-message
            # session) that find nothing to free: one pass afterwards, if any, instead.
            collecting = gc.isenabled()
            gc.disable()
            try:
                await chat.replay(items)
            finally:
                if collecting:
                    gc.enable()
        else:
            chat.add_notice(welcome_text(birdie.status(), welcome_keys(screen.app)),
                            markdown=True)
        screen.query_one(Composer).set_history([i.content for i in items if i.role == "user"])
        panel = screen.query_one(ContextPanel)
        panel.set_records(await birdie.contexts(), keep=False)  # every call, for ←/→
        panel.show(await birdie.injection())  # the latest call's bodies (or the older view)
        screen.query_one(SkillSidebar).set_skills(birdie.skill_rows(), birdie.broken_files())
        screen.show_status(busy=False)
        await screen.turns.ask_pending()

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

    async def switch(self, session_id: str) -> None:
        status = self.door.status()
        if status.session_id == session_id:
            return
        await self.screen.turns.cancel()
        await self.door.open_session(session_id)

    async def new(self) -> None:
        await self.screen.turns.cancel()
        await self.door.new_session()

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
        return self.door.session_rows()

    async def rename_session(self, session_id: str, title: str) -> None:
        self.door.rename_session(session_id, title)

    async def delete_session(self, session_id: str) -> None:
        if session_id == self.door.status().session_id:
            await self.screen.turns.cancel()
        await self.door.delete_session(session_id)
        self.screen.notify(f"Deleted session {session_id}", timeout=2)
