"""Text chunks merged over a short window, so a paced stream costs one trip through LangChain,
LangGraph and the turn's events per window instead of one per token.

At 200 tokens a second every network read carries one token. Each chunk then pays the callbacks,
the graph's message stream and an event, about 0.5 ms; that was most of what a streamed reply
cost with nothing drawn (bench/RESULTS.md §21). The rule is a throttle with a trailing flush:

- text goes out at once when no text went out in the last `window` seconds (the first chunk of
  a reply, or the first after a pause);
- otherwise it is held and joined, and goes out when the window since the last text ends, even
  if no byte arrives by then (a timer, not the next read);
- anything that is not plain text (a tool-call piece, the end of the stream, an error) first
  sends what is held, so the order holds and the end is not delayed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator

from langchain_core.messages import AIMessageChunk

# 33 ms: about one frame at 30 fps. The screen shows a reply at 10 frames a second, so the
# wait is invisible; at 200 tok/s it merges ~6 tokens a chunk (§21 compares 16, 33 and 50).
STREAM_WINDOW = 0.033


def _plain_text(chunk: AIMessageChunk) -> bool:
    """A chunk that is only text, safe to join with its neighbours."""
    return (isinstance(chunk.content, str) and bool(chunk.content) and not chunk.tool_call_chunks
            and not chunk.usage_metadata and not chunk.response_metadata)


async def coalesce(source: AsyncIterator[AIMessageChunk], window: float = STREAM_WINDOW
                   ) -> AsyncGenerator[AIMessageChunk, None]:
    """`source`'s chunks with plain text merged as the module says. Reads run ahead in a task so
    held text can go out on time while a read waits; closing this closes `source`."""
    if window <= 0:
        async for chunk in source:
            yield chunk
        return
    loop = asyncio.get_running_loop()
    held: list[str] = []
    sent_at = float("-inf")  # when text last went out
    reading: asyncio.Future[AIMessageChunk] | None = None
    try:
        while True:
            if reading is None:
                reading = asyncio.ensure_future(anext(source))
            if held and not reading.done():
                await asyncio.wait((reading,), timeout=max(sent_at + window - loop.time(), 0))
                if not reading.done():  # the window ended with nothing new: send what is held
                    yield AIMessageChunk(content="".join(held))
                    held.clear()
                    sent_at = loop.time()
            try:
                chunk = await reading
            except StopAsyncIteration:
                break
            except Exception:  # not a cancellation: nothing may be sent after one of those
                reading = None
                if held:  # the text that arrived before a failure is shown, as before
                    yield AIMessageChunk(content="".join(held))
                raise
            reading = None
            if not _plain_text(chunk):
                if held:
                    yield AIMessageChunk(content="".join(held))
                    held.clear()
                yield chunk
                continue
            now = loop.time()
            if not held and now - sent_at >= window:
                sent_at = now
                yield chunk
            else:
                held.append(chunk.content)  # type: ignore[arg-type]
        if held:  # the end of the stream sends what is held at once
            yield AIMessageChunk(content="".join(held))
    finally:
        if reading is not None and not reading.done():
            reading.cancel()  # the read is abandoned: the source sees the cancellation
            with contextlib.suppress(BaseException):
                await reading
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            await aclose()
