"""How a running turn shows up: one handler per engine event type, and the turn's own state
(the reply being streamed, the model calls so far, tokens not yet in the session file).

`HANDLERS` covers the whole vocabulary of `birdie_tui.agent.events`; a test keeps it so, and an
event type nobody handles is reported, never silently dropped.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from birdie_tui.tui.views import injection_view
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

if TYPE_CHECKING:
    from birdie_tui.tui.app import BirdieApp

log = logging.getLogger("birdie_tui.tui")


class TurnView:
    HANDLERS = {
        "session": "on_session",
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

    def __init__(self, app: BirdieApp) -> None:
        self.app = app
        self.reply: Any = None  # the AssistantMessage being streamed
        self.calls: list[tuple[int, int]] = []  # (input, output) per model call of the turn
        self.live_in = self.live_out = 0  # this turn's tokens, not yet in the session file

    def reset(self) -> None:
        self.reply = None
        self.calls = []
        self.live_in = self.live_out = 0

    @property
    def chat(self) -> ChatLog:
        return self.app.query_one(ChatLog)

    async def handle(self, event: Any) -> None:
        name = self.HANDLERS.get(event.type)
        if name is None:
            log.error("no handler for engine event %r", event)
            self.app.notify(f"Birdie sent an event this screen cannot show: {event.type}",
                            severity="error")
            return
        result = getattr(self, name)(event)
        if result is not None:
            await result

    # -- handlers, one per event type ---------------------------------------------------------

    def on_session(self, event: Any) -> None:
        self.app.refresh_status(busy=True)

    def on_injected(self, event: Any) -> None:
        self.app.query_one(ContextPanel).show(injection_view(event))

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
        if event.decision != "approved":
            self.app.notify(f"{event.name} was not run (denied).", severity="warning")

    def on_usage(self, event: Any) -> None:
        self.calls.append((event.input_tokens, event.output_tokens))
        self.live_in += event.input_tokens
        self.live_out += event.output_tokens
        self.app.refresh_status(busy=True)

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
            # Rendered by the reply's own worker: a long reply must not hold up the app's
            # message queue (keys for the composer wait in it).
            reply.run_worker(reply.mark_interrupted() if interrupted else reply.finish(),
                             group="reply-render", exit_on_error=False)
