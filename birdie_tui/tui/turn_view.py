"""How a running turn shows up: one handler per turn event type, and the reply being streamed.

`HANDLERS` and `MainScreen.HANDLERS` together cover the whole vocabulary of
`birdie_tui.agent.events`; a test keeps it so. Token figures are not kept here: the ledger
(behind the front door) owns them and its `totals` event redraws the panels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from birdie_tui.service.rows import InjectionView
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

if TYPE_CHECKING:
    from birdie_tui.tui.main_screen import MainScreen


class TurnView:
    HANDLERS = {
        "injected": "on_injected",
        "token": "on_token",
        "tool_call": "on_tool_call",
        "tool_result": "on_tool_result",
        "approval": "on_approval",
        "usage": "on_usage",
        "done": "on_done",
        "error": "on_error",
        "cancelled": "on_cancelled",
    }

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.reply: Any = None  # the AssistantMessage being streamed

    def reset(self) -> None:
        self.reply = None

    @property
    def chat(self) -> ChatLog:
        return self.screen.query_one(ChatLog)

    async def handle(self, event: Any) -> None:
        result = getattr(self, self.HANDLERS[event.type])(event)
        if result is not None:
            await result

    # -- handlers, one per event type ---------------------------------------------------------

    def on_injected(self, event: Any) -> None:
        self.screen.query_one(ContextPanel).show(InjectionView.of(event))

    def on_token(self, event: Any) -> None:
        if self.reply is None:
            self.reply = self.chat.start_reply()
        self.reply.append(event.text)

    async def on_tool_call(self, event: Any) -> None:
        self.close_reply()
        self.chat.add_tool_call(event.id, event.name, dict(event.args))

    def on_tool_result(self, event: Any) -> None:
        self.chat.finish_tool(event.id, event.content, event.error)

    def on_approval(self, event: Any) -> None:
        for block in self.chat.query(ToolBlock):
            if block.call_id == event.id and event.decision in ("approved", "denied"):
                block.hold(None if event.decision == "approved" else "not run (denied)")
        if event.decision != "approved":
            self.screen.notify(f"{event.name} was not run (denied).", severity="warning")

    def on_usage(self, event: Any) -> None:
        """A model call completed; the ledger's `totals` event that follows redraws figures."""

    def on_done(self, event: Any) -> None:
        self.close_reply()

    def on_error(self, event: Any) -> None:
        self.close_reply(interrupted=True)
        self.chat.add_error(event.message)

    def on_cancelled(self, event: Any) -> None:
        self.chat.cancel_running_tools()
        if self.reply is not None:
            self.close_reply(interrupted=True)
        else:
            self.chat.add_notice("Turn cancelled.")

    def close_reply(self, interrupted: bool = False) -> None:
        reply, self.reply = self.reply, None
        if reply is not None:
            # Rendered by the reply's own worker: a long reply must not hold up the screen's
            # message queue (keys for the composer wait in it).
            reply.run_worker(reply.mark_interrupted() if interrupted else reply.finish(),
                             group="reply-render", exit_on_error=False)
