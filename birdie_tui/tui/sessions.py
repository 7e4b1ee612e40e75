"""Session handling for the app: switch, new, cycle, rename, delete, and replaying a session's
history into the chat. Also the `SessionActions` the session browser calls back into."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from birdie_tui.tui.view_models import SessionRow
from birdie_tui.tui.views import session_rows

if TYPE_CHECKING:
    from birdie_tui.tui.app import BirdieApp


def welcome_text(engine: Any) -> str:
    model = engine.model_label
    lines = [
        f"**Session `{engine.session.id}`** · {model}",
        "",
        "Type a message and press **Enter** (ctrl+j for a new line). "
        "`/help` lists commands; **ctrl+s** browses sessions; **ctrl+p** opens the palette.",
    ]
    if engine.provider.vendor == "offline":
        lines += [
            "",
            "No API key was found, so the built-in offline model answers. It can still run "
            'your tools: try `call list_files {"path": "."}`.',
        ]
    return "\n".join(lines)


class SessionControl:
    def __init__(self, app: BirdieApp):
        self.app = app

    def run(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run a session operation in its own worker group (never the turn's)."""
        self.app.run_worker(work, group="sessions", exclusive=True, exit_on_error=False)

    @property
    def engine(self) -> Any:
        return self.app.engine

    def not_running(self) -> None:
        """Session keys before the engine runs: say what is going on and what to do."""
        if self.app.booting.failed:
            self.app.notify("Birdie is not running — ctrl+n or /retry starts it again.",
                            severity="warning", timeout=4)
        else:
            self.app.notify("Still starting up…", timeout=2)

    async def show_current(self, *, new: bool = False) -> None:
        """Replay the open session into the chat and restore its grants and token totals."""
        from birdie_tui.agent.transcript import message_to_dict
        from birdie_tui.tui.widgets.chat.chat_log import ChatLog
        from birdie_tui.tui.widgets.composer import Composer
        from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

        app = self.app
        chat = app.query_one(ChatLog)
        await chat.clear_log()
        history = await self.engine.messages()
        items = [message_to_dict(msg) for msg in history]
        if items:
            await chat.replay(items)
        else:
            chat.add_notice(welcome_text(self.engine), markdown=True)
        app.query_one(Composer).set_history(
            [item["content"] for item in items if item["role"] == "user"])
        app.turn.calls = last_turn_calls(items)  # the context figure where this session left off
        app.query_one(ContextPanel).show(last_turn_injection(self.engine, history))
        app.refresh_skills()
        app.refresh_status(busy=False)

    async def switch(self, session_id: str) -> None:
        if self.engine.session and self.engine.session.id == session_id:
            return
        await self.app.cancel_turn()
        await self.engine.switch_session(session_id)
        await self.show_current()

    async def new(self) -> None:
        await self.app.cancel_turn()
        await self.engine.new_session()
        await self.show_current(new=True)

    async def cycle(self, step: int) -> None:
        """ctrl+pageup / ctrl+pagedown: the previous / next session in the browser's order
        (newest first), wrapping around."""
        if self.engine is None:
            self.not_running()
            return
        ids = [row.id for row in session_rows(self.engine)]  # the browser's order
        current = self.engine.session.id
        if len(ids) < 2:
            self.app.notify("No other session yet — ctrl+n starts one.", timeout=2)
            return
        index = ids.index(current)
        await self.switch(ids[(index + step) % len(ids)])
        self.app.notify(f"Session {self.engine.session.id}", timeout=1.5)

    def open_browser(self) -> None:
        from birdie_tui.tui.screens.session_browser import SessionBrowser

        if self.engine is None:
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

        self.app.push_screen(SessionBrowser(self), chosen)

    def resume_hint(self) -> str | None:
        """The command that comes back to this session (printed after the app exits); None
        when nothing was ever sent in it (an unsent session leaves nothing on disk)."""
        from birdie_tui.resume import resume_command

        engine = self.engine
        meta = engine.session if engine is not None else None
        if meta is None or not engine.session_saved:
            return None
        return f"Resume this session: {resume_command(meta.id, user=self.app.args.user)}"

    # ------------------------------------------------------------ SessionActions (browser)
    def session_rows(self) -> list[SessionRow]:
        return session_rows(self.engine)

    async def rename_session(self, session_id: str, title: str) -> None:
        self.engine.rename_session(session_id, title)
        self.app.refresh_status()

    async def delete_session(self, session_id: str) -> None:
        current = self.engine.session.id if self.engine.session else None
        if session_id == current:
            await self.app.cancel_turn()
        replacement = await self.engine.delete_session(session_id)
        if replacement is not None:
            await self.show_current(new=True)
        self.app.notify(f"Deleted session {session_id}", timeout=2)


def memory_notes(engine: Any) -> list[str]:
    return [entry.content for entry in engine.memory.entries()]


def last_turn_injection(engine: Any, history: list[Any]) -> Any:
    """What the session's last turn put in the prompt, rebuilt from its history with the
    skills and memory in force now (so a resumed session does not show an empty panel)."""
    from langchain_core.messages import HumanMessage

    from birdie_tui.agent.prompt import build_system_prompt
    from birdie_tui.text import content_text
    from birdie_tui.agent.skill_tools import loaded_skill_names
    from birdie_tui.tui.view_models import InjectionView
    from birdie_tui.tui.views import injection_view

    last = next((m for m in reversed(history) if isinstance(m, HumanMessage)), None)
    if last is None:
        return InjectionView(memory=memory_notes(engine))
    allowed = engine.toolbox.allowed_skills()
    _, report = build_system_prompt(
        allowed, content_text(last.content), loaded=loaded_skill_names(history),
        memory=memory_notes(engine), tools_by_tag=engine.toolbox.tools_by_tag(allowed))
    return injection_view(report)


def last_turn_calls(items: list[dict]) -> list[tuple[int, int]]:
    """(input, output) tokens of each model call in the session's last turn."""
    calls: list[tuple[int, int]] = []
    for item in items:
        if item["role"] == "user":
            calls = []
        elif item["role"] == "assistant" and item.get("usage"):
            calls.append((int(item["usage"]["input_tokens"]), int(item["usage"]["output_tokens"])))
    return calls
