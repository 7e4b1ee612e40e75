"""How a running turn shows up: one handler per turn event class, and the reply being streamed.

`TurnView.handle` and `MainScreen.on_engine_event` together cover the whole vocabulary of
`birdie_tui.events` (mypy checks both `match`es are exhaustive; a test posts every event). Token
figures are not kept here: the ledger (behind the front door) owns them and its `totals` event
redraws the panels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias, assert_never, get_args

from birdie_tui.events import (
    AgentFinished,
    AgentStarted,
    ApprovalDecided,
    ChildEvent,
    SkillsInjected,
    TokenStreamed,
    ToolCallStarted,
    ToolFinished,
    TurnCancelled,
    TurnDone,
    TurnError,
    UsageReported,
)
from birdie_tui.service.rows import InjectionView
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

if TYPE_CHECKING:
    from birdie_tui.tui.main_screen import MainScreen

# The turn events the chat shows (`session`, the other turn event, is a change for the screen).
ShownTurnEvent: TypeAlias = (SkillsInjected | TokenStreamed | ToolCallStarted | ToolFinished
                             | ApprovalDecided | UsageReported | TurnDone | TurnError
                             | TurnCancelled | AgentStarted | AgentFinished | ChildEvent)


class TurnView:
    EVENTS: tuple[type[ShownTurnEvent], ...] = get_args(ShownTurnEvent)

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.reply: AssistantMessage | None = None  # the reply being streamed

    def reset(self) -> None:
        self.reply = None

    @property
    def chat(self) -> ChatLog:
        return self.screen.query_one(ChatLog)

    async def handle(self, event: ShownTurnEvent) -> None:
        match event:
            case SkillsInjected():
                self.on_injected(event)
            case TokenStreamed():
                self.on_token(event)
            case ToolCallStarted():
                self.on_tool_call(event)
            case ToolFinished():
                self.on_tool_result(event)
            case ApprovalDecided():
                self.on_approval(event)
            case UsageReported():
                self.on_usage(event)
            case TurnDone():
                self.on_done(event)
            case TurnError():
                self.on_error(event)
            case TurnCancelled():
                self.on_cancelled(event)
            case AgentStarted() | AgentFinished() | ChildEvent():
                self.on_sub_agent(event)
            case _:
                assert_never(event)

    # -- handlers, one per event class --------------------------------------------------------

    def on_sub_agent(self, event: AgentStarted | AgentFinished | ChildEvent) -> None:
        """A sub-agent's work, in the block its call became (several may stream at once)."""
        if isinstance(event, AgentStarted):
            self.close_reply()
            self.chat.start_agent(event.call_id, event.name, dict(event.inputs), event.child)
            return
        block = self.chat.agent(event.child)
        if block is None:  # its block was pruned from the chat
            return
        if isinstance(event, AgentFinished):
            block.end(event.status, error=event.error, calls=event.calls,
                      tokens=event.input_tokens + event.output_tokens)
        else:
            block.on_child(event.event)
            if isinstance(event.event, ApprovalDecided) and event.event.decision == "denied":
                self.screen.notify(f"{event.agent}: {event.event.name} was not run (denied).",
                                   severity="warning")

    def on_injected(self, event: SkillsInjected) -> None:
        self.screen.query_one(ContextPanel).show(InjectionView.of(event))

    def on_token(self, event: TokenStreamed) -> None:
        if self.reply is None:
            self.reply = self.chat.start_reply()
        self.reply.append(event.text)

    def on_tool_call(self, event: ToolCallStarted) -> None:
        self.close_reply()
        self.chat.add_tool_call(event.id, event.name, dict(event.args))

    def on_tool_result(self, event: ToolFinished) -> None:
        self.chat.finish_tool(event.id, event.content, event.error)

    def on_approval(self, event: ApprovalDecided) -> None:
        for block in self.chat.query(ToolBlock):
            if block.call_id == event.id and event.decision in ("approved", "denied"):
                block.hold(None if event.decision == "approved" else "not run (denied)")
        if event.decision != "approved":
            self.screen.notify(f"{event.name} was not run (denied).", severity="warning")

    def on_usage(self, event: UsageReported) -> None:
        """A model call completed; the ledger's `totals` event that follows redraws figures."""

    def on_done(self, event: TurnDone) -> None:
        self.close_reply()
        self.screen.show_agent_runs()  # this turn's sub-agent runs, openable in the panel

    def on_error(self, event: TurnError) -> None:
        self.close_reply(interrupted=True)
        self.chat.add_error(event.message)

    def on_cancelled(self, event: TurnCancelled) -> None:
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
