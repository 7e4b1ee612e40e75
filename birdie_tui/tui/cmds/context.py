"""What a command handler gets: the front door and a few things the screen can do for it.
Never the App: a handler can be read (and tested) knowing only this."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.notifications import SeverityLevel

    from birdie_tui.service import Birdie
    from birdie_tui.service.rows import UserTurn


class CommandUI(Protocol):
    """The screen's side of a command."""

    birdie: Birdie | None  # None until Birdie has started
    @property
    def turn_running(self) -> bool: ...

    def say(self, text: str, *, markdown: bool = True) -> None: ...  # a notice in the chat
    def error(self, text: str) -> None: ...  # an error block in the chat
    def toast(self, text: str, *, severity: SeverityLevel = "information",
              timeout: float | None = None) -> None: ...
    async def confirm(self, question: str) -> bool: ...  # keep-by-default dialog
    async def clear_chat(self) -> None: ...
    def set_tool_output(self, mode: str) -> None: ...
    def set_agent_output(self, mode: str) -> None: ...
    def theme_names(self) -> list[str]: ...
    def current_theme(self) -> str: ...
    def set_theme(self, name: str) -> bool: ...
    def open_browser(self) -> None: ...
    def open_runs(self) -> None: ...  # the runs view: agents that ran on their own
    async def new_session(self) -> None: ...
    async def open_session(self, session_id: str) -> None: ...
    async def delete_session(self, session_id: str) -> None: ...
    def start_turn(self, text: str) -> None: ...
    def edit_message(self, text: str) -> None: ...  # into the composer, to edit and send
    # The rewind picker over `turns`: (action, message number), or None when closed.
    async def pick_message(self, turns: Sequence[UserTurn], action: str
                           ) -> tuple[str, int] | None: ...
    def rewatch_skills(self) -> None: ...  # follow the skill folders again (one was added)
    def quit(self) -> None: ...
    async def ask_pending_approvals(self) -> None: ...
    def copy_text(self, text: str, what: str) -> None: ...  # to the clipboard, and a toast


class CommandContext:
    """One command's view of the world: `birdie` (the front door) and `ui` (the screen)."""

    def __init__(self, ui: CommandUI) -> None:
        self.ui = ui

    @property
    def birdie(self) -> Birdie:
        birdie = self.ui.birdie
        assert birdie is not None, "commands that need Birdie run only once it has started"
        return birdie

    def say(self, text: str, *, markdown: bool = True) -> None:
        self.ui.say(text, markdown=markdown)

    def toast(self, text: str, *, severity: SeverityLevel = "information",
              timeout: float | None = None) -> None:
        self.ui.toast(text, severity=severity, timeout=timeout)
