"""Text chunks merged over a short window, so a paced stream costs one trip through LangChain,
LangGraph and the turn's events per window instead of one per token, and about two network
reads per window instead of one per token.

At 200 tokens a second every network read carries one token. Each read costs ~0.2 ms in
httpx/httpcore/anyio, and each chunk then pays the callbacks, the graph's message stream and an
event, about 0.5 ms; that was most of what a streamed reply cost with nothing drawn
(bench/RESULTS.md §21). The rules:

- text goes out at once when no text went out in the last `window` seconds (the first chunk of
  a reply, or the first after a pause);
- otherwise it is held, and no read starts until the window since the last text ends: the
  socket gathers the window's tokens, and one read takes them all. Reads that complete without
  waiting on the network (events already buffered) are then drained, and the whole window goes
  out in one chunk. If nothing arrived, what is held goes out when the window ends anyway;
- a source that is behind (a reply sent all at once: every read is served from a buffer) is
  read without a pause, with what is held sent once a window; it is never paused a window per
  buffer;
- anything that is not plain text (a tool-call piece, the end of the stream, an error) first
  sends what is held, so the order holds. The end goes out as soon as it is read; since no read
  runs while text is held, the last text may wait the rest of its window, never longer.

A source gives plain text as a `str` (an adapter's text of one network read) and anything else
as an `AIMessageChunk`: a message object is built once per chunk sent, not once per read
(bench/RESULTS.md §37). Whatever the source gives, what comes out is `AIMessageChunk`s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeAlias

from langchain_core.messages import AIMessageChunk

# What a vendor stream yields: text as a plain string, anything else (tool-call pieces, the
# chunks of adapters that build their own) as a message chunk.
Piece: TypeAlias = "AIMessageChunk | str"

# 33 ms: about one frame at 30 fps. The screen shows a reply at 10 frames a second, so the
# wait is invisible; at 200 tok/s it merges ~6 tokens a chunk (§21 compares 16, 33 and 50).
STREAM_WINDOW = 0.033
# A read served from what has already arrived completes within a few turns of the event loop
# (h11's buffered events in one, a socket read of waiting bytes through anyio in 2-5), however
# long other work makes each turn; a read that needs more is waiting for the next byte. Counted
# in turns, not time: a reply sent all at once must not look paced because the UI is drawing.
PROBE_TURNS = 6


def _plain_text(chunk: AIMessageChunk) -> bool:
    """A chunk that is only text, safe to join with its neighbours."""
    return (isinstance(chunk.content, str) and bool(chunk.content) and not chunk.tool_call_chunks
            and not chunk.usage_metadata and not chunk.response_metadata)


def _text_of(piece: Piece) -> str | None:
    """The text of a piece that is only text ("" for an empty string), else None."""
    if isinstance(piece, str):
        return piece
    return piece.content if _plain_text(piece) else None  # type: ignore[return-value]


def _as_chunk(piece: Piece) -> AIMessageChunk:
    return piece if isinstance(piece, AIMessageChunk) else AIMessageChunk(content=piece)


class _Window:
    """What is held, when text last went out, and whether reads are being drained."""

    def __init__(self, loop: asyncio.AbstractEventLoop, window: float) -> None:
        self.loop, self.window = loop, window
        self.held: list[str] = []
        self.sent_at = float("-inf")  # when text last went out
        self.draining = False  # reads are served from buffers: no pause before the next
        self.drain_until = 0.0  # while draining, what is held goes out at this time

    def take(self) -> AIMessageChunk:
        """What is held, as one chunk; the window starts again."""
        chunk = AIMessageChunk(content="".join(self.held))
        self.held.clear()
        self.sent_at = self.loop.time()
        self.drain_until = self.sent_at + self.window
        return chunk

    def add(self, text: str) -> bool:
        """Plain text that was just read; True if it should go out at once (alone). After
        that, the next read is probed: if it is served at once, the source is behind."""
        now = self.loop.time()
        if not self.held and not self.draining and now - self.sent_at >= self.window:
            self.sent_at, self.drain_until, self.draining = now, now + self.window, True
            return True
        self.held.append(text)
        return False

    async def wait_for_window(self) -> None:
        """Before the read that ends a window: let the network gather the window's tokens."""
        await asyncio.sleep(max(self.sent_at + self.window - self.loop.time(), 0))
        self.draining, self.drain_until = True, self.loop.time() + self.window


async def _served_at_once(reading: asyncio.Future[Piece]) -> bool:
    """Whether `reading` completes within PROBE_TURNS turns of the loop."""
    for _ in range(PROBE_TURNS):
        if reading.done():
            return True
        await asyncio.sleep(0)
    return reading.done()


async def coalesce(source: AsyncIterator[Piece], window: float = STREAM_WINDOW
                   ) -> AsyncGenerator[AIMessageChunk, None]:
    """`source`'s pieces with plain text merged as the module says, as message chunks. A read
    may run while a chunk is out with the consumer; closing this closes `source`."""
    if window <= 0:
        async for piece in source:
            if not isinstance(piece, str) or piece:  # an empty string carries nothing
                yield _as_chunk(piece)
        return
    loop = asyncio.get_running_loop()
    state = _Window(loop, window)
    reading: asyncio.Future[Piece] | None = None
    try:
        while True:
            if reading is None:
                if state.held and not state.draining:
                    await state.wait_for_window()
                reading = asyncio.ensure_future(anext(source))
                if state.draining and not await _served_at_once(reading):
                    state.draining = False  # caught up: the next text waits for its window
                    if state.held:
                        yield state.take()
            try:
                chunk = await reading
            except StopAsyncIteration:
                break
            except Exception:  # not a cancellation: nothing may be sent after one of those
                reading = None
                if state.held:  # the text that arrived before a failure is shown, as before
                    yield state.take()
                raise
            reading = None
            text = _text_of(chunk)
            if text is None:
                if state.held:
                    yield state.take()
                yield _as_chunk(chunk)
            elif not text:
                continue  # an empty string carries nothing
            elif state.add(text):
                yield _as_chunk(chunk)  # alone: its one message is built here
            elif state.draining and loop.time() >= state.drain_until:
                yield state.take()  # a long backlog still shows once a window
        if state.held:  # the end of the stream sends what is held at once
            yield state.take()
    finally:
        if reading is not None and not reading.done():
            reading.cancel()  # the read is abandoned: the source sees the cancellation
            with contextlib.suppress(BaseException):
                await reading
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            await aclose()
