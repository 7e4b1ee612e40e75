"""The scrolling conversation: user messages, streamed replies, tool blocks, notices, errors.

It receives plain strings and transcript rows (never engine objects), keeps at most
`MAX_WIDGETS` children, and stays anchored to the bottom while the reply streams unless the
user has scrolled up. So that a long session streams like a new one, older replies become
cached lines and, while the log follows the bottom, entries far above the view fold into one
blank (`folding.Fold`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from textual import events
from textual.containers import VerticalScroll
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Markdown

from birdie_tui.mentions.attach import shown_text
from birdie_tui.tui.widgets.chat.agent_block import AGENT_OUTPUT_MODES, AgentBlock
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.folding import Fold
from birdie_tui.tui.widgets.chat.notice import ErrorBlock, Notice
from birdie_tui.tui.widgets.chat.scrollbar import cached_vertical_scrollbar
from birdie_tui.tui.widgets.chat.tool_block import TOOL_OUTPUT_MODES, ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage

if TYPE_CHECKING:
    from birdie_tui.service.rows import TranscriptItem

W = TypeVar("W", bound=Widget)

MAX_WIDGETS = 300
# Replies older than this many from the end use the cheap renderer (see AssistantMessage), both
# replayed ones and live ones that new replies pushed up.
FULL_MARKDOWN_REPLIES = 12
PRUNED_TEXT = "… earlier messages hidden"


class ChatLog(VerticalScroll):
    """The conversation log. The app mounts it with id="chat"."""

    MAX_WIDGETS = MAX_WIDGETS

    DEFAULT_CSS = """
    ChatLog {
        layout: stream;
        height: 1fr;
        padding: 0 1;
        background: $background;
        & > Markdown.notice { margin: 0 0 1 0; padding: 0 1; }
        /* ctrl+f's current match (widgets/search_bar.py): no change of size, so the fold's
           heights hold. */
        & > .-search-hit { background: $warning 20%; outline-left: outer $warning; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        # Calls waiting for their result; a sub-agent call's block is an `AgentBlock`.
        self._tools: dict[str, ToolBlock | AgentBlock] = {}
        self._agents: dict[str, AgentBlock] = {}  # by child id: where a child's events go
        self._tool_output_mode = "full"
        self._agent_output_mode = "short"
        self._pruned_notice: Notice | None = None
        self._fold = Fold(self)

    def on_mount(self) -> None:
        self.anchor()

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's `Widget.vertical_scrollbar`, making a bar that keeps its lines (it moves
        every frame of a streamed reply; see `CachedScrollBar`)."""
        return cached_vertical_scrollbar(self)

    def follow(self) -> None:
        """Back to the bottom, and stay there as entries arrive (until the user scrolls up)."""
        self.anchor()

    # -- adding entries -----------------------------------------------------------------------

    def add_user(self, text: str) -> UserMessage:
        """The user's message; sending one also brings the view back to the bottom."""
        message = self._add(UserMessage(text))
        self.scroll_end(animate=False)
        return message

    def start_reply(self) -> AssistantMessage:
        """A new streaming reply at the bottom; feed it with `append`, end with `finish`."""
        reply = self._add(AssistantMessage())
        self.call_after_refresh(self._settle_older)
        return reply

    def add_tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> ToolBlock:
        block = ToolBlock(call_id, name, args, mode=self._tool_output_mode)
        self._tools[call_id] = block
        return self._add(block)

    def finish_tool(self, call_id: str, content: str, error: bool) -> None:
        block = self._tools.pop(call_id, None)
        if block is None:  # a result whose call we never saw (or pruned): still show it
            block = self._add(ToolBlock(call_id, "tool", {}, mode=self._tool_output_mode))
        block.finish(content, error)

    def start_agent(self, call_id: str, name: str, inputs: dict[str, Any],
                    child: str) -> AgentBlock:
        """A sub-agent call began: its tool block (the parent's call) becomes an agent block
        in the same place, which the child's events and the call's result then reach."""
        block = AgentBlock(call_id, name, inputs, child=child, mode=self._agent_output_mode,
                           tool_mode=self._tool_output_mode)
        called = self._tools.get(call_id)
        self._tools[call_id] = block
        self._agents[child] = block
        if isinstance(called, ToolBlock) and called.parent is self:
            self.mount(block, after=called)
            called.remove()
            return block
        return self._add(block)

    def agent(self, child: str) -> AgentBlock | None:
        """The block a child's events go to (None: pruned, or never started here)."""
        return self._agents.get(child)

    def add_error(self, message: str) -> ErrorBlock:
        return self._add(ErrorBlock(message))

    def add_notice(self, text: str, *, markdown: bool = False) -> Widget:
        """Command output. `markdown=True` renders tables and lists (e.g. /help)."""
        return self._add(Markdown(text, classes="notice") if markdown else Notice(text))

    def _add(self, widget: W) -> W:
        self.mount(widget)
        self._prune()
        return widget

    # -- tool output mode ---------------------------------------------------------------------

    @property
    def tool_output_mode(self) -> str:
        return self._tool_output_mode

    def set_tool_output_mode(self, mode: str) -> None:
        """`full`, `short` (first lines) or `off` (name and line count): for old and new blocks."""
        if mode not in TOOL_OUTPUT_MODES:
            raise ValueError(f"tool output mode must be one of {TOOL_OUTPUT_MODES}, not {mode!r}")
        self._tool_output_mode = mode
        self._fold.unfold()  # folded blocks change height too
        for block in self.query_children(ToolBlock):
            block.set_mode(mode)
        for agent in self.query_children(AgentBlock):
            agent.set_mode(agent.mode, mode)

    @property
    def agent_output_mode(self) -> str:
        return self._agent_output_mode

    def set_agent_output_mode(self, mode: str) -> None:
        """`/agent output`: how much of a sub-agent's work its blocks show, old and new."""
        if mode not in AGENT_OUTPUT_MODES:
            raise ValueError(f"agent output mode must be one of {AGENT_OUTPUT_MODES}, "
                             f"not {mode!r}")
        self._agent_output_mode = mode
        self._fold.unfold()
        for agent in self.query_children(AgentBlock):
            agent.set_mode(mode)

    # -- whole-log operations -----------------------------------------------------------------

    def cancel_running_tools(self) -> None:
        """Mark calls that will never get a result (the turn was stopped)."""
        for block in self._tools.values():
            block.cancel()
        self._tools.clear()

    async def clear_log(self) -> None:
        self._tools.clear()
        self._agents.clear()
        self._pruned_notice = None
        self._fold.reset()
        await self.remove_children()

    async def replay(self, items: list[TranscriptItem]) -> None:
        """Rebuild a past conversation at once: no streaming, one mount for everything. Only
        the tail that `MAX_WIDGETS` keeps is built (a 2,000-message session built every widget
        and then dropped most of them)."""
        skip = replay_start(items, self.MAX_WIDGETS)
        items = items[skip:]
        widgets: list[Widget] = []
        pending: dict[str, ToolBlock | AgentBlock] = {}
        # Calls answered by a sub-agent are shown as its (finished) block, as they were live.
        agents = {item.tool_call_id: item for item in items if item.role == "tool" and item.agent}
        mode = self._tool_output_mode
        # The replies the user sees first get the full renderer, so they look like live ones.
        replies_left = sum(1 for item in items if _is_reply(item))
        for item in items:
            if item.role == "user":
                widgets.append(UserMessage(shown_text(item.content)))
            elif item.role == "assistant":
                if _is_reply(item):
                    replies_left -= 1
                    lite = replies_left >= FULL_MARKDOWN_REPLIES
                    widgets.append(AssistantMessage.static(item.content, lite=lite))
                for call in item.tool_calls:
                    done = agents.get(call.id)
                    block: ToolBlock | AgentBlock = ToolBlock(
                        call.id, call.name or "tool", dict(call.args), mode=mode) \
                        if done is None else AgentBlock(
                        call.id, call.name or done.agent, dict(call.args), child=done.child,
                        mode=self._agent_output_mode, tool_mode=mode)
                    pending[call.id] = block
                    widgets.append(block)
            elif item.role == "tool":
                called = pending.pop(item.tool_call_id, None)
                if called is None:
                    called = ToolBlock(item.tool_call_id, item.name or "tool", {}, mode=mode)
                    widgets.append(called)
                if isinstance(called, AgentBlock):
                    called.end("error" if item.error else "done", calls=item.agent_calls,
                               tokens=item.agent_tokens)
                called.finish(item.content, item.error)
        for block in pending.values():  # calls whose results never came back
            block.cancel()
        if not widgets:
            return
        existing = self._entries()
        overflow = len(existing) + len(widgets) - self.MAX_WIDGETS
        if overflow > 0:
            dropped = min(overflow, len(existing))
            self._forget(existing[:dropped])
            await self.remove_children(existing[:dropped])
            widgets = widgets[overflow - dropped:]
        with self.app.batch_update():
            await self.mount_all(widgets)
            if overflow > 0 or skip:
                await self._ensure_pruned_notice()
        self.scroll_end(animate=False, immediate=True)

    async def _settle_older(self) -> None:
        """Older entries cost less to lay out (see `Fold` and `AssistantMessage.to_lite`): every
        full layout walks each displayed widget, so at a few hundred turns the old ones, not the
        new text, set what a streamed frame costs. Only while following the bottom: heights may
        change, which would move what a reader scrolled up to is looking at."""
        if self.scroll_y < self.max_scroll_y:
            return
        replies = [child for child in self.children if isinstance(child, AssistantMessage)]
        for reply in replies[:-FULL_MARKDOWN_REPLIES]:
            if not reply.lite:
                await reply.to_lite()
        self.call_after_refresh(self._fold_far_entries)

    def on_assistant_message_part_done(self, message: AssistantMessage.PartDone) -> None:
        self.call_after_refresh(self._fold_far_entries)  # a long reply pushed entries up

    async def _fold_far_entries(self) -> None:
        """Fold what scrolled far up. A reply is made lite first and measured after that
        layout, so a folded entry's height never changes while it is hidden."""
        if self.scroll_y < self.max_scroll_y:
            return
        entries = self._entries()
        far = self._fold.foldable(entries)
        converted = [reply for reply in far
                     if isinstance(reply, AssistantMessage) and await reply.to_lite()]
        if converted:
            self.call_after_refresh(self._fold_far_entries)
        else:
            await self._fold.fold(far, entries)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value < old_value and self._fold.near():
            self._fold.unfold()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._fold.width:
            self._fold.unfold()  # its heights are the old width's

    # -- search (ctrl+f) ---------------------------------------------------------------------

    def search_entries(self) -> list[Widget]:
        """The entries a search goes through, top first (folded ones too)."""
        return self._entries()

    def reveal(self, entry: Widget, *, fraction: float = 0.0) -> None:
        """Bring a found entry into view: folded entries shown again, a collapsed tool or
        agent block opened, then scrolled to about `fraction` of the way down the entry (where
        the match is in its text) once the layout has placed it."""
        if entry.parent is not self:
            return
        if not entry.display:
            self._fold.unfold()
        if isinstance(entry, ToolBlock) and entry.collapsed and entry.mode != "off":
            entry.collapsed = False
        elif isinstance(entry, AgentBlock) and entry.collapsed:
            entry.toggle()
        self.call_after_refresh(self._scroll_to_entry, entry, fraction, 3)

    def _scroll_to_entry(self, entry: Widget, fraction: float, tries: int) -> None:
        if entry.parent is not self:
            return
        region = entry.virtual_region
        if (not region.height or not self._fold.settled()) and tries > 0:
            self.call_after_refresh(self._scroll_to_entry, entry, fraction, tries - 1)
            return
        view = self.scrollable_content_region.height
        if region.height <= view:  # all of it on screen, in the middle
            target = region.y + region.height // 2 - view // 2
        else:  # the match's line a third of the way down the screen
            target = region.y + int(region.height * fraction) - view // 3
        self.scroll_to(y=max(0, min(target, self.max_scroll_y)), animate=False,
                       immediate=True)

    # -- pruning ------------------------------------------------------------------------------

    def _entries(self) -> list[Widget]:
        """Children that count towards `MAX_WIDGETS` (not the "hidden" notice nor the fold)."""
        return [child for child in self.children
                if child is not self._pruned_notice and child is not self._fold.space]

    def _prune(self) -> None:
        entries = self._entries()
        overflow = len(entries) - self.MAX_WIDGETS
        if overflow <= 0:
            return
        old = entries[:overflow]
        self._forget(old)
        self.remove_children(old)
        self.call_later(self._ensure_pruned_notice)

    def _forget(self, widgets: list[Widget]) -> None:
        self._fold.forget(widgets)
        gone = {id(widget) for widget in widgets}
        for call_id in [cid for cid, block in self._tools.items() if id(block) in gone]:
            del self._tools[call_id]
        for child in [c for c, block in self._agents.items() if id(block) in gone]:
            del self._agents[child]

    async def _ensure_pruned_notice(self) -> None:
        if self._pruned_notice is not None and self._pruned_notice.parent is self:
            return
        self._pruned_notice = Notice(PRUNED_TEXT, classes="-pruned")
        await self.mount(self._pruned_notice, before=0 if self.children else None)
        self._fold.refit()  # the blank now has a sibling above it, whose margin it meets


def _is_reply(item: TranscriptItem) -> bool:
    return item.role == "assistant" and bool(item.content.strip())


def _widget_count(item: TranscriptItem) -> int:
    """How many chat entries `replay` makes for one item (a tool result joins its call's
    block)."""
    if item.role == "user":
        return 1
    if item.role == "assistant":
        return int(_is_reply(item)) + len(item.tool_calls)
    return 0


def replay_start(items: list[TranscriptItem], limit: int) -> int:
    """The first item worth building when at most `limit` entries are kept: the latest user
    message from which the rest fits (0 when everything fits). Starting at a user message
    keeps each tool call together with its result."""
    count, start = 0, 0
    for index in range(len(items) - 1, -1, -1):
        count += _widget_count(items[index])
        if count > limit:
            break
        if items[index].role == "user":
            start = index
    else:
        return 0
    return start
