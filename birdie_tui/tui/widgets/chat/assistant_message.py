"""The assistant's reply: Markdown streamed in batches, split across widgets when it grows long.

Tokens arrive far faster than Markdown can re-render, so `append` only buffers and asks for a
flush, which starts when `FlushPacer` allows (at most 10 a second, see flush_pacer).
Textual's Markdown re-parses (and rebuilds) its whole *last block* on every
append, so a long reply is cut into several Markdown widgets at block boundaries (never inside a
code fence): a 200-item list or a long blockquote would otherwise make every flush O(reply). A
flush that took d seconds is followed by at least d seconds of idle loop, so the composer keeps
answering keys however slow rendering gets. While it streams, the last paragraph grows a few
lines at a time, so most flushes repaint a few rows without a layout pass (`ReplyMarkdown`).

Textual's Markdown mounts ~10 widgets per short reply (300 replies ≈ 9 s), so replayed history
can ask for `lite=True`: one `LiteReply`, rich's Markdown kept as lines (300 replies ≈ 0.5 s).
A live reply becomes one too once it is far enough up the chat (`to_lite`, the chat decides).

A reply that arrives faster than it can be streamed into Markdown (a fast model, or one that
sends everything at once) catches up instead of draining: its last part is rendered as
Markdown at once and mounted first, so the end is on screen within a frame or two, and the
parts before it are mounted above it as `LiteReply` parts, one per tick (never one long freeze).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from birdie_tui.screen_text import clean
from birdie_tui.tui import collector
from birdie_tui.tui.copying import CopyText
from birdie_tui.tui.layout_pass import arranged_size
from birdie_tui.tui.widgets.chat.copy_affordance import CopyButton, hovered, on_label
from birdie_tui.tui.widgets.chat.flush_pacer import FLUSH_PERIOD, FlushPacer
from birdie_tui.tui.widgets.chat.lexer_warmup import FenceWatch
from birdie_tui.tui.widgets.chat.lite_reply import LiteReply
from birdie_tui.tui.widgets.chat.reply_markdown import ReplyMarkdown
from birdie_tui.tui.widgets.chat.reply_splitter import (
    QUOTE_SPLIT_CHARS,
    SPLIT_CHARS,
    ParagraphSplitter,
)

FLUSH_INTERVAL = FLUSH_PERIOD
FLUSH_BUDGET = 0.05  # seconds of rendering per tick before the rest waits for the next one
CATCH_UP_CHARS = 2 * SPLIT_CHARS  # a backlog this big at the end is caught up, not drained
COLLAPSE_FINISHED = True
RELEASE_AFTER = 0.25  # seconds after a reply's end before the collector's pass (see finish)
LITE_CHARS = 3_000  # caught-up parts are joined into lite parts of about this size
def _joined(parts: list[str], size: int) -> list[str]:
    """Consecutive parts joined into pieces of about `size` characters (never split)."""
    pieces: list[str] = []
    for part in parts:
        if pieces and len(pieces[-1]) + len(part) <= size:
            pieces[-1] += part
        else:
            pieces.append(part)
    return pieces


class AssistantMessage(Widget):
    """One assistant turn. Call `append` per token, `finish` (or `mark_interrupted`) at the end."""

    class PartDone(Message):
        """A long reply finished one of its parts: the log may fold what scrolled far up."""

    # Neither it nor its Markdown draws anything but background under its children (no border,
    # no text), yet while a reply streams both grow every few flushes, and a resized widget
    # re-renders every visible line through the styles cache: two thirds of the lines a frame
    # rendered. BLANK draws one cached blank strip instead.
    BLANK = True

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        return super().arrange(arranged_size(self, size), optimal)  # once a frame, not twice

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 0 0 1 0;
        & > Markdown { margin: 0; padding: 0 1; }
        & > .lite { padding: 0 1; }
        /* A part the reply was cut into ends where a block ended: the gap Markdown leaves
           under a block, which rich's rendering of the part drops at its end. */
        & > .lite.-part { margin-bottom: 1; }
        & > .interrupted { color: $text-muted; text-style: italic; padding: 0 1; }
        &.-hovered > CopyButton { display: block; }
        /* Textual scrolls a wide code block sideways behind a hidden scrollbar and it cannot
           take focus, so the end of a long line was out of sight and out of reach. Wrap it
           instead (folding long tokens), as the lite renderer's rich Syntax does. */
        & MarkdownFence {
            overflow-x: hidden;
            & > Label { width: 1fr; text-wrap: wrap; text-overflow: fold; }
        }
    }
    """

    def __init__(
        self,
        text: str = "",
        *,
        streaming: bool = True,
        lite: bool = False,
        split_chars: int = SPLIT_CHARS,
        flush_interval: float = FLUSH_INTERVAL,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        text = clean(text)  # a model's escape sequences never reach the terminal
        self._parts: list[str] = [text] if text else []
        self._pending: list[str] = [text] if (text and streaming) else []
        self._streaming = streaming
        self._finished = not streaming
        self._rendered = not streaming
        self._interrupted = False
        self._pacer = FlushPacer(flush_interval)
        self._splitter = ParagraphSplitter(split_chars, quote_limit=QUOTE_SPLIT_CHARS)
        self._fences = FenceWatch()  # a code block's lexer loads before the flush that needs it
        self._flush_lock = asyncio.Lock()
        # Split but not yet rendered: (starts a new Markdown widget?, text).
        self._queue: list[tuple[bool, str]] = []
        self._stream: MarkdownStream | None = None
        self._flush_handle: asyncio.TimerHandle | None = None  # a flush asked for, not yet run
        self._lite = lite and not streaming
        self._markdown = ReplyMarkdown(None if streaming else text)
        self.flush_count = 0  # how many batches reached the Markdown (tests, diagnostics)
        self._holding_collector = False

    @classmethod
    def static(cls, text: str, *, lite: bool = False, **kwargs: Any) -> AssistantMessage:
        """A finished message rendered at once (replaying history); `lite`: one cheap widget."""
        return cls(text, streaming=False, lite=lite, **kwargs)

    @property
    def text(self) -> str:
        """Everything appended so far, rendered or not."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def rendered(self) -> bool:
        """Finished, and every character has reached a Markdown widget."""
        return self._rendered

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    @property
    def markdown_widgets(self) -> list[Markdown]:
        return list(self.query_children(Markdown))

    @property
    def rendered_text(self) -> str:
        """The text that reached the screen, part by part (Markdown or caught-up lite)."""
        return "".join(part.source for part in self.children
                       if isinstance(part, (Markdown, LiteReply)))

    @property
    def lite(self) -> bool:
        return self._lite

    def compose(self) -> ComposeResult:
        if self._lite:
            yield LiteReply(self.text)
        else:
            yield self._markdown
        if self._interrupted:
            yield Static("interrupted", classes="interrupted")
        if self._finished:
            yield CopyButton()

    def on_mount(self) -> None:
        if self._finished:
            if self._streaming:  # finished before it was mounted: render in one go
                self._markdown.update(self.text)
                self.call_later(self._add_copy)
            return
        self._open_stream()
        self._ask_flush()
        collector.stream_started()  # no full collection mid-stream (see collector)
        self._holding_collector = True

    def append(self, fragment: str) -> None:
        """Buffer a fragment; the timer renders it. Cheap enough to call per token."""
        fragment = clean(fragment)
        if not fragment or self._finished:
            return
        self._parts.append(fragment)
        self._pending.append(fragment)
        self._fences.feed(fragment)
        self._ask_flush()

    def _ask_flush(self) -> None:
        """Have what is buffered flushed once the pacer allows (one request at a time)."""
        if self._flush_handle is not None or self._stream is None or self._finished:
            return
        if not (self._pending or self._queue):
            return
        loop = asyncio.get_running_loop()
        delay = self._pacer.delay(time.monotonic())
        # Run in the widget's queue, not the loop's callback: Textual reports its errors.
        self._flush_handle = loop.call_later(delay, self._flush_due)

    def _flush_due(self) -> None:
        self._flush_handle = None
        self.call_later(self._flush_tick)

    async def _flush_tick(self) -> None:
        if self._flush_lock.locked():
            return  # finish holds it, and renders everything itself
        if self._pacer.delay(time.monotonic()) > 0:  # asked for while the last one ran
            self._ask_flush()
            return
        async with self._flush_lock:
            started = time.monotonic()
            await self._flush()
            self._pacer.flushed(started, time.monotonic())
        self._ask_flush()  # what arrived meanwhile, or what the budget left

    async def _flush(self, budget: float | None = FLUSH_BUDGET) -> None:
        """Render what is buffered; with a `budget`, stop after that long at a widget boundary
        (the rest waits for the next tick, so one flush never holds the loop for long)."""
        if self._stream is None:
            return
        self._split_pending()
        started = time.monotonic()
        while self._queue:
            new_widget, text = self._queue.pop(0)
            if new_widget:
                await self._start_new_segment()
            self.flush_count += 1
            await self._stream.write(text)
            if budget is not None and time.monotonic() - started > budget:
                break

    def _enqueue(self, new_widget: bool, text: str) -> None:
        if not text and not new_widget:
            return
        if self._queue and not new_widget:  # same widget as the last queued piece: merge
            last_new, last_text = self._queue[-1]
            self._queue[-1] = (last_new, last_text + text)
        else:
            self._queue.append((new_widget, text))

    def _open_stream(self) -> None:
        self._stream = Markdown.get_stream(self._markdown)
        self._markdown.streaming(True)

    async def _stop_stream(self) -> None:
        """Render what the stream holds and end it (its widget gives back its spare rows)."""
        assert self._stream is not None
        await self._stream.stop()
        self._markdown.streaming(False)

    async def _start_new_segment(self) -> None:
        await self._stop_stream()
        finished, self._markdown = self._markdown, ReplyMarkdown()
        self.post_message(self.PartDone())
        await self.mount(self._markdown)
        self._open_stream()
        if COLLAPSE_FINISHED:  # after this flush's paint, not inside its layout pass
            self.call_after_refresh(self._collapse, finished)

    async def _collapse(self, markdown: Markdown) -> None:
        """A finished part becomes one `LiteReply`: its dozens of block widgets would otherwise
        be laid out again on every frame of the rest of the reply. Rich renders the part here,
        right after a frame went out, at the width the layout will ask for (both have the same
        padding): inside the layout pass it delayed the frame that showed the new part's
        first text by 10-26 ms (bench/RESULTS.md §41)."""
        if not self.is_attached or markdown.parent is not self or self._lite:
            return  # removed meanwhile: the reply pruned or cleared, or made lite (`to_lite`)
        lite = LiteReply(markdown.source, classes="lite -part")
        lite.prepare(markdown.content_region.width)
        await self.mount(lite, before=markdown)
        await markdown.remove()

    async def finish(self) -> None:
        """Render what is left and stop streaming. Safe to call twice."""
        if self._finished:
            return
        self._finished = True
        if self._stream is None:  # not mounted yet: on_mount renders the whole text
            self._rendered = True
            return
        self._cancel_flush()
        async with self._flush_lock:
            self._split_pending()
            if sum(len(text) for _, text in self._queue) >= CATCH_UP_CHARS:
                await self._catch_up()
            # Drain in budgeted batches with the loop free in between: a reply that arrived
            # all at once (a fast model) must not freeze the composer while it renders.
            while self._stream is not None and (self._pending or self._queue):
                started = time.monotonic()
                await self._flush()
                if self._queue:
                    await asyncio.sleep(time.monotonic() - started)
            if self._stream is not None:
                await self._stop_stream()
                self._stream = None
        self._rendered = True
        await self._add_copy()
        # Once the frame that shows the end is out (a timer, not the next idle moment, which
        # can come before the paint): the turn's full pass must not delay it.
        self.set_timer(RELEASE_AFTER, self._release_collector)

    async def _add_copy(self) -> None:
        """A finished reply's "copy" (shown while the mouse is over the reply)."""
        if self.is_mounted and not self.query_children(CopyButton):
            button = CopyButton()
            button.place(self.size.width)
            await self.mount(button)

    def on_resize(self, event: events.Resize) -> None:
        for button in self.query_children(CopyButton):
            button.place(event.size.width)

    def on_enter(self, event: events.Enter) -> None:
        hovered(self, event)

    def on_leave(self, event: events.Leave) -> None:
        hovered(self, event)

    def on_click(self, event: events.Click) -> None:
        if self._finished and on_label(self, event):
            event.stop()
            self.post_message(CopyText(self.text, "the reply"))

    def _release_collector(self) -> None:
        if self._holding_collector:
            self._holding_collector = False
            collector.stream_ended()

    def _split_pending(self) -> None:
        """Move what is buffered into the queue, cut where new Markdown widgets start."""
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        start = 0
        for split in [*self._splitter.feed(chunk), len(chunk)]:
            self._enqueue(start > 0, chunk[start:split])
            start = split

    async def _catch_up(self) -> None:
        """Show a big backlog's end first, then fill in the parts above it (see the module)."""
        assert self._stream is not None
        parts = [text for _, text in self._queue]
        continues = not self._queue[0][0]  # the first part belongs to the current widget
        self._queue.clear()
        if continues:
            await self._stream.write(parts.pop(0))
        await self._stop_stream()
        self._stream = None
        if not parts:
            return
        last = ReplyMarkdown(parts.pop())
        await self.mount(last)
        for text in _joined(parts, LITE_CHARS):  # parts end at block boundaries: joinable
            await asyncio.sleep(0)  # the loop between parts: keys and frames go on
            await self.mount(LiteReply(text, classes="lite -part"), before=last)
            self.flush_count += 1

    async def to_lite(self) -> bool:
        """A rendered reply's Markdown widgets replaced by one `LiteReply` of its whole text
        (the interrupted note stays). False when it is already lite or still rendering."""
        if self._lite or not self._rendered or not self.is_mounted:
            return False
        self._lite = True
        parts = [child for child in self.children if isinstance(child, (Markdown, LiteReply))]
        if not parts:
            return False
        await self.mount(LiteReply(self.text), before=parts[0])
        await self.remove_children(parts)
        return True

    async def mark_interrupted(self) -> None:
        """Finish, then say so: the user stopped the turn before it ended."""
        await self.finish()
        if self._interrupted:
            return
        self._interrupted = True
        if self.is_mounted:  # otherwise compose adds the note
            await self.mount(Static("interrupted", classes="interrupted"))

    def _cancel_flush(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None

    def on_unmount(self) -> None:
        # Pruned or cleared mid-stream: drop the stream's background task with the widget.
        self._finished = True
        self._cancel_flush()
        self._release_collector()
        stream, self._stream = self._stream, None
        task = getattr(stream, "_task", None)
        if stream is not None and task is not None:
            stream._pending.clear()
            task.cancel()
