"""The window that merges a paced stream's text (birdie_tui/providers/coalesce.py), on a
scripted source with real time between chunks. Windows are wide (0.2 s) so a loaded machine
cannot reorder what the tests compare.

The source is a wire: its chunks arrive on their own schedule whether or not anyone reads (as
bytes reach a socket), and a read of a chunk that has already arrived does not wait (h11's
buffered events, or a socket read that finds data)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from langchain_core.messages import AIMessageChunk

from birdie_tui.providers.coalesce import coalesce

WINDOW = 0.2


class Script:
    """An async source of chunks, each arriving `delay` after the one before (from the first
    read), read or not; records when each arrived, the reads that had to wait for one, and
    whether the source was closed."""

    def __init__(self, steps: list[tuple[float, AIMessageChunk | Exception]],
                 turns: int = 0) -> None:
        self.steps = steps
        self.turns = turns  # loop turns a read of what has arrived takes (anyio's: 2-5)
        self.sent: list[float] = []
        self.waits = 0  # reads that found nothing arrived: what a network read that waits is
        self.ended = 0.0  # when the end was read
        self.closed = False

    async def stream(self) -> AsyncIterator[AIMessageChunk]:
        loop = asyncio.get_running_loop()
        due = loop.time()
        try:
            for delay, item in self.steps:
                due += delay
                if due > loop.time():
                    self.waits += 1
                    await asyncio.sleep(due - loop.time())
                for _ in range(self.turns):
                    await asyncio.sleep(0)
                if isinstance(item, Exception):
                    raise item
                self.sent.append(due)
                yield item
            self.ended = loop.time()
        finally:
            self.closed = True


async def collect(script: Script, window: float = WINDOW
                  ) -> list[tuple[float, AIMessageChunk]]:
    loop = asyncio.get_running_loop()
    return [(loop.time(), chunk) async for chunk in coalesce(script.stream(), window)]


def text(words: list[str]) -> list[tuple[float, AIMessageChunk]]:
    return [(0.0 if i == 0 else 0.01, AIMessageChunk(content=w)) for i, w in enumerate(words)]


async def test_paced_text_is_merged_with_the_first_chunk_at_once():
    """Text every 10 ms leaves in a few chunks, exact and in order; the first goes out as it
    arrives, not a window later."""
    words = [f"w{i} " for i in range(50)]
    script = Script(text(words))
    out = await collect(script)
    assert "".join(c.content for _, c in out) == "".join(words)
    assert 2 <= len(out) < 10
    assert out[0][1].content == "w0 "
    assert out[0][0] - script.sent[0] < WINDOW / 2


async def test_held_text_leaves_when_the_window_ends_not_with_the_next_byte():
    """After a pause longer than the window, what was held has already gone out, a window
    after the last text, long before the next chunk arrives."""
    script = Script(text(["a", "b"]) + [(1.0, AIMessageChunk(content="c"))])
    out = await collect(script)
    assert [c.content for _, c in out] == ["a", "b", "c"]
    assert out[1][0] - out[0][0] < WINDOW * 1.75
    assert out[1][0] < script.sent[2] - 0.5
    assert out[2][0] - script.sent[2] < WINDOW / 2  # after a pause: at once


async def test_the_end_of_the_stream_sends_what_is_held_at_once():
    """The end, once read, sends what is held at once: the last text waits at most the rest of
    its window (no read runs while text is held), never a window more for the end."""
    script = Script(text(["a", "b", "c"]))
    out = await collect(script)
    assert [c.content for _, c in out] == ["a", "bc"]
    assert out[-1][0] - script.ended < WINDOW / 4
    assert out[-1][0] - script.sent[-1] < WINDOW * 1.25


async def test_paced_text_is_read_about_twice_a_window_not_once_a_token():
    """While text is held no read starts: the window's tokens are read when it ends, without
    waiting, so reads that wait for the network fall from one a token to about two a window."""
    words = [f"w{i} " for i in range(100)]  # one every 10 ms: 1 s, five windows
    script = Script(text(words))
    out = await collect(script)
    assert "".join(c.content for _, c in out) == "".join(words)
    assert script.waits <= 2 * 6 + 2
    assert len(out) <= 12


async def test_a_reply_sent_all_at_once_is_read_without_a_pause():
    """A source that is behind (every read served from a buffer) is drained at once, not
    paused a window per read: the whole reply is out well within one window."""
    words = [f"w{i} " for i in range(400)]
    script = Script([(0.0, AIMessageChunk(content=w)) for w in words])
    loop = asyncio.get_running_loop()
    start = loop.time()
    out = await collect(script)
    assert "".join(c.content for _, c in out) == "".join(words)
    assert out[-1][0] - start < WINDOW / 2
    assert len(out) <= 3


async def test_a_tool_call_piece_sends_held_text_first_and_passes_as_is():
    """Order holds across kinds: held text, then the tool-call piece unmerged, then the
    final chunk with usage."""
    piece = {"type": "tool_call_chunk", "index": 0, "args": "{}", "id": "c1", "name": "echo"}
    call = AIMessageChunk(content="", tool_call_chunks=[piece])  # type: ignore[list-item]
    last = AIMessageChunk(content="", response_metadata={"finish_reason": "tool_calls"})
    script = Script(text(["a", "b"]) + [(0.01, call), (0.01, AIMessageChunk(content="c")),
                                       (0.01, last)])
    out = [c for _, c in await collect(script)]
    assert out[:2] == [AIMessageChunk(content="a"), AIMessageChunk(content="b")]
    assert out[2] is call
    assert [c.content for c in out[3:-1]] == ["c"] and out[-1] is last


async def test_a_reply_sent_all_at_once_is_not_paused_while_the_loop_is_busy():
    """Reads of what has arrived that take a few loop turns, while other work (the UI drawing)
    makes each turn slow, still count as a source that is behind: no read waits a window."""
    words = [f"w{i} " for i in range(20)]
    script = Script([(0.0, AIMessageChunk(content=w)) for w in words], turns=3)

    async def drawing() -> None:
        while True:
            time.sleep(0.003)  # a frame's work holds the loop
            await asyncio.sleep(0)

    busy = asyncio.ensure_future(drawing())
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        out = await collect(script)
    finally:
        busy.cancel()
    assert "".join(c.content for _, c in out) == "".join(words)
    assert out[-1][0] - start < len(words) * WINDOW / 4  # paused a window a read: 20 windows


async def test_a_failure_sends_held_text_then_raises():
    """Text that arrived before the stream broke is still delivered, then the error."""
    script = Script(text(["a", "b"]) + [(0.01, ConnectionError("cut"))])
    seen: list[str] = []
    with pytest.raises(ConnectionError):
        async for chunk in coalesce(script.stream(), WINDOW):
            seen.append(chunk.content)  # type: ignore[arg-type]
    assert seen == ["a", "b"]


async def test_closing_early_cancels_the_read_and_closes_the_source():
    """A consumer that stops (a cancelled turn) leaves no read running: the source is closed."""
    script = Script(text(["a"]) + [(5.0, AIMessageChunk(content="never"))])
    chunks = coalesce(script.stream(), WINDOW)
    assert (await anext(chunks)).content == "a"
    reading = asyncio.ensure_future(anext(chunks))
    await asyncio.sleep(0.05)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    await chunks.aclose()
    assert script.closed


async def test_no_window_passes_every_chunk_through():
    """A window of 0 keeps one chunk per source chunk."""
    script = Script(text(["a", "b", "c"]))
    assert [c.content for _, c in await collect(script, 0)] == ["a", "b", "c"]


class CountedChunks:
    """Counts the message chunks built while it is on (`AIMessageChunk.__init__`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built = 0
        init = AIMessageChunk.__init__

        def counted(chunk: AIMessageChunk, *args: object, **kwargs: object) -> None:
            self.built += 1
            init(chunk, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(AIMessageChunk, "__init__", counted)


async def test_text_as_plain_strings_costs_one_message_a_chunk_sent(monkeypatch):
    """A source's text given as plain strings (an adapter's text of one read) is merged as
    message chunks are and comes out as message chunks; a message is built per chunk sent,
    none per piece read. Other pieces keep their place and pass as they are."""
    words = [f"w{i} " for i in range(50)]
    last = AIMessageChunk(content="", response_metadata={"finish_reason": "stop"})
    steps: list[tuple[float, AIMessageChunk | Exception | str]] = [
        (0.0 if i == 0 else 0.01, w) for i, w in enumerate(words)]
    script = Script(steps + [(0.01, ""), (0.01, last)])  # type: ignore[arg-type]
    counted = CountedChunks(monkeypatch)
    out = [c for _, c in await collect(script)]
    assert all(isinstance(c, AIMessageChunk) for c in out)
    assert "".join(c.content for c in out[:-1]) == "".join(words)  # type: ignore[misc]
    assert out[-1] is last and out[0].content == "w0 "
    assert 2 <= len(out) - 1 < 10
    assert counted.built == len(out) - 1  # the merged chunks; `last` was the source's


async def test_no_window_turns_plain_strings_into_chunks():
    """A window of 0 gives one message chunk per string with text (an empty one carries
    nothing) and passes message chunks as they are."""
    last = AIMessageChunk(content="", response_metadata={"finish_reason": "stop"})
    script = Script([(0.0, "a"), (0.0, ""), (0.0, "b"), (0.0, last)])  # type: ignore[list-item]
    out = [c for _, c in await collect(script, 0)]
    assert [c.content for c in out] == ["a", "b", ""] and out[-1] is last
