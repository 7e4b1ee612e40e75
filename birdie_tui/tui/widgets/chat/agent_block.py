"""A sub-agent call in the chat: one header line (the agent, its inputs, a live status) over a
body that streams the child's text and shows its tool calls as nested tool blocks.

The parent's tool call of the agent becomes this block (`ChatLog.start_agent`), so the agent's
answer (the parent's `tool_result`) lands here too. How much of the child's work shows follows
`/agent output` (Birdie's command): `full` everything, `short` the child's text cut at
`SHORT_CHARS` characters (the rest counted) with its tool output shortened, `off` the header
line only. Click or Enter on the header opens or closes the body.

A finished block is cheap: its replies become lite (one cached leaf each), and outside `full`
its body is closed (`display: none`), so the chat's layout skips it until it is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from birdie_tui.text import counted
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.notice import Notice
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock, compact_args
from birdie_tui.tui.widgets.safe_content import exact

if TYPE_CHECKING:
    from birdie_tui.events import ChildTurnEvent

AGENT_OUTPUT_MODES = ("full", "short", "off")
SHORT_CHARS = 1000  # Birdie 0.15.1's `short`: this many characters of a sub-agent's output


def nested_tool_mode(agent_mode: str, tool_mode: str) -> str:
    """The mode of a child's tool blocks: the chat's `/tool output`, shortened by `short`."""
    return "short" if agent_mode == "short" and tool_mode == "full" else tool_mode


class AgentHeader(Static, can_focus=True):
    """The block's title row; a click or Enter opens or closes the body."""

    DEFAULT_CSS = """
    AgentHeader {
        height: auto;
        text-wrap: wrap;
        text-overflow: fold;
        &:hover { background: $boost; }
        &:focus { background: $boost; color: $text; }
    }
    """

    BINDINGS = [Binding("enter,space", "toggle", "Toggle", id="agent_block.toggle", show=False)]

    def action_toggle(self) -> None:  # type: ignore[override]
        self._block().toggle()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self._block().toggle()

    def _block(self) -> AgentBlock:
        parent = self.parent
        assert isinstance(parent, AgentBlock)
        return parent


class AgentBlock(Vertical):
    """One sub-agent call: running → done / error / cancelled."""

    DEFAULT_CSS = """
    AgentBlock {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 0 0 1;
        border-left: outer $accent 70%;
        background: $surface;
        color: $text-muted;
        &.-error { border-left: outer $error; }
        & > .agent-body { height: auto; padding: 1 1 0 1; }
        & > .agent-body > AssistantMessage { margin: 0; }
        & > .agent-body > ToolBlock { margin: 0; }
        & > .agent-body > .agent-more { color: $text-muted; text-style: italic; margin: 0; }
        &.-collapsed > .agent-body { display: none; }
    }
    """

    def __init__(self, call_id: str, name: str, inputs: dict[str, Any] | None = None, *,
                 child: str = "", mode: str = "short", tool_mode: str = "full") -> None:
        super().__init__()
        self._call_id = call_id
        self._agent = name
        self._inputs = dict(inputs or {})
        self.child = child
        self._mode = mode if mode in AGENT_OUTPUT_MODES else "short"
        self._tool_mode = tool_mode
        self.status = "running"  # running | done | error | cancelled
        self.error_text = ""
        self.calls = 0  # the child's model calls so far
        self.tokens = 0  # their input and output tokens
        self.answer: str | None = None  # the parent's tool result (the agent's answer)
        self._text = ""  # everything the child said
        # What the child did, in order: its text between tool calls, and those calls' blocks.
        self._order: list[str | ToolBlock] = []
        self._shown = 0  # characters of it in the body (short mode stops at SHORT_CHARS)
        self._reply: AssistantMessage | None = None  # the child's reply being streamed
        self._tools: dict[str, ToolBlock] = {}
        self._header = AgentHeader(markup=False)
        self._body = Vertical(classes="agent-body")
        self._more = Notice("", classes="agent-more")
        self._more.display = False
        self.set_class(self._mode == "off", "-collapsed")
        self._redraw()

    def compose(self) -> ComposeResult:
        yield self._header
        with self._body:
            yield self._more

    # -- public state -------------------------------------------------------------------------

    @property
    def call_id(self) -> str:
        return self._call_id

    @property
    def agent(self) -> str:
        return self._agent

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def collapsed(self) -> bool:
        return self.has_class("-collapsed")

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @property
    def text(self) -> str:
        """Everything the child has said (whatever the mode shows of it)."""
        return self._text

    @property
    def title_text(self) -> str:
        return self._title().plain

    @property
    def tool_blocks(self) -> list[ToolBlock]:
        return list(self._body.query_children(ToolBlock))

    @property
    def more_text(self) -> str:
        return self._more.text if self._more.display else ""

    # -- the child's events -------------------------------------------------------------------

    def on_child(self, event: ChildTurnEvent) -> None:
        from birdie_tui import events as ev  # loaded with the first turn, not the first frame

        match event:
            case ev.TokenStreamed():
                self._stream(event.text)
            case ev.ToolCallStarted():
                self._close_reply()
                block = ToolBlock(event.id, event.name, dict(event.args),
                                  mode=nested_tool_mode(self._mode, self._tool_mode))
                self._tools[event.id] = block
                self._order.append(block)
                self._body.mount(block, before=self._more)
            case ev.ToolFinished():
                found = self._tools.pop(event.id, None)
                if found is not None:
                    found.finish(event.content, event.error)
            case ev.ApprovalDecided():
                found = self._tools.get(event.id)
                if found is not None and event.decision in ("approved", "denied"):
                    found.hold(None if event.decision == "approved" else "not run (denied)")
            case ev.UsageReported():
                self.calls += 1
                self.tokens += event.input_tokens + event.output_tokens
                self._redraw()
            case ev.SkillsInjected():
                pass  # the child's prompt: its model calls open from the context panel

    def _stream(self, text: str) -> None:
        self._text += text
        if self._order and isinstance(self._order[-1], str):
            self._order[-1] += text
        else:
            self._order.append(text)
        if self._mode == "short":
            room = max(0, SHORT_CHARS - self._shown)
            text = text[:room]
        if text:
            self._shown += len(text)
            if self._reply is None:
                self._reply = AssistantMessage()
                self._body.mount(self._reply, before=self._more)
            self._reply.append(text)
        self._say_more()

    def _say_more(self) -> None:
        hidden = len(self._text) - self._shown
        if hidden > 0:
            self._more.text = f"… {counted(hidden, 'more character')} (/agent output full shows all)"
            self._more.update(self._more.text)
        self._more.display = hidden > 0

    def _close_reply(self, interrupted: bool = False) -> None:
        reply, self._reply = self._reply, None
        if reply is not None:
            reply.run_worker(reply.mark_interrupted() if interrupted else reply.finish(),
                             group="reply-render", exit_on_error=False)

    def end(self, status: str, *, error: str = "", calls: int | None = None,
            tokens: int | None = None) -> None:
        """The child ended (`agent_end`): its status and final counts."""
        if self.finished:
            return
        self.status = status if status in ("done", "error", "cancelled") else "done"
        self.error_text = error
        self.calls = self.calls if calls is None else calls
        self.tokens = self.tokens if tokens is None else tokens
        self._close_reply(interrupted=self.status == "cancelled")
        for block in self._tools.values():
            block.cancel()
        self._tools.clear()
        self.set_class(self.status == "error", "-error")
        if self.status == "error" and error:
            self._body.mount(Notice(f"error: {error}", classes="agent-error"), before=self._more)
        # Outside `full` a finished block closes (an error stays open to be read).
        if self._mode != "full" and self.status != "error":
            self.add_class("-collapsed")
        self._redraw()
        self.run_worker(self._settle(), group="agent-settle", exit_on_error=False)

    async def _settle(self) -> None:
        """Once the child's replies have rendered, each becomes one cheap leaf."""
        for reply in self._body.query_children(AssistantMessage):
            await reply.finish()
            await reply.to_lite()

    # -- the parent's tool call ---------------------------------------------------------------

    def finish(self, content: str, error: bool = False) -> None:
        """The parent's tool result: the agent's answer (or why it failed)."""
        self.answer = content
        if not self.finished:
            self.end("error" if error else "done", error=content if error else "")
        elif error and not self.error_text:
            self.error_text = content
            self._redraw()

    def cancel(self) -> None:
        """The turn stopped before the agent answered."""
        if not self.finished:
            self.end("cancelled")

    def hold(self, why: str | None) -> None:
        """A tool block's `hold`: an agent call is never gated itself."""

    # -- showing ------------------------------------------------------------------------------

    def set_mode(self, mode: str, tool_mode: str | None = None) -> None:
        if mode not in AGENT_OUTPUT_MODES:
            raise ValueError(f"agent output mode must be one of {AGENT_OUTPUT_MODES}, "
                             f"not {mode!r}")
        self._mode = mode
        if tool_mode is not None:
            self._tool_mode = tool_mode
        for block in self._body.query_children(ToolBlock):
            block.set_mode(nested_tool_mode(mode, self._tool_mode))
        if mode == "off" or (self.finished and mode == "short" and self.status != "error"):
            self.add_class("-collapsed")
        elif mode == "full":
            self.remove_class("-collapsed")
        if self.finished and self.is_mounted:
            self.run_worker(self._reshow_text(), group="agent-settle", exit_on_error=False)
        self._redraw()

    async def _reshow_text(self) -> None:
        """A finished block's text again as the mode shows it: each stretch of the child's
        text one lite reply, before the tool call that followed it."""
        budget = SHORT_CHARS if self._mode == "short" else len(self._text)
        replies = list(self._body.query_children(AssistantMessage))
        await self._body.remove_children(replies)
        self._shown = 0
        for index, item in enumerate(self._order):
            if not isinstance(item, str) or self._shown >= budget:
                continue
            text = item[:budget - self._shown]
            self._shown += len(text)
            after = next((i for i in self._order[index + 1:] if isinstance(i, ToolBlock)), None)
            before = after if after is not None and after.parent is self._body else self._more
            await self._body.mount(AssistantMessage.static(text, lite=True), before=before)
        self._say_more()

    def toggle(self) -> None:
        self.toggle_class("-collapsed")
        self._redraw()

    def _title(self) -> Content:
        arrow = "▸" if self.collapsed else "▾"
        parts: list[str | tuple[str, str] | Content] = [
            f"{arrow} ", ("agent ", "$accent"), exact(self._agent, "bold $text")]
        if self._inputs:
            parts.append(f"({compact_args(self._inputs)})")
        figures = [counted(self.calls, "call")] if self.calls else []
        if self.tokens:
            figures.append(f"{self.tokens:,} tokens")
        tail = "".join(f" · {f}" for f in figures)
        if self.status == "running":
            parts.append((f"  …running{tail}", "italic"))
        elif self.status == "done":
            parts += [("  ✓", "bold $success"), f" done{tail}"]
        elif self.status == "cancelled":
            parts.append(f"  ✗ cancelled{tail}")
        else:
            parts += [("  ✗", "bold $error"), f" error{tail}"]
        return Content.assemble(*parts)

    def _redraw(self) -> None:
        self._header.update(self._title())
