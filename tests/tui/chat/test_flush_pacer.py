"""When a streaming reply flushes: the pacer's rule on a fake clock, and the widget keeping it."""

from __future__ import annotations

import asyncio
import time

from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.flush_pacer import FLUSH_PERIOD, FlushPacer
from tests.tui.chat.harness import ChatHarness


def flush_starts(arrivals: list[float], took: float, pacer: FlushPacer) -> list[float]:
    """When flushes start for text arriving at `arrivals`, each flush taking `took` seconds
    (what AssistantMessage does: a flush is asked for on arrival and starts when allowed)."""
    starts: list[float] = []
    due: float | None = None
    for now in arrivals:
        if due is not None and due <= now:  # the asked-for flush ran before this arrival
            starts.append(due)
            pacer.flushed(due, due + took)
            due = None
        if due is None:
            due = now + pacer.delay(now)
    if due is not None:
        starts.append(due)
    return starts


def test_text_in_33_ms_windows_is_flushed_once_a_period_with_even_gaps():
    """Chunks every 35 ms (the provider's coalescing window) are flushed once a period: no gap
    between two flushes is shorter than the period or longer than it plus one window, so a
    15-a-second pacer flushes ~15 times a second (not 10 or 28) and the default ~10."""
    arrivals = [0.035 * i for i in range(1, 58)]  # 2 s of stream
    for period, count in ((1 / 15, range(28, 32)), (FLUSH_PERIOD, range(18, 22))):
        starts = flush_starts(arrivals, took=0.003, pacer=FlushPacer(period))
        gaps = [b - a for a, b in zip(starts, starts[1:])]
        assert max(gaps) < period + 0.035
        assert all(gap >= period - 1e-9 for gap in gaps)
        assert len(starts) in count


def test_text_after_a_pause_is_flushed_at_once():
    """The first text, and text after a quiet stretch longer than the period, does not wait."""
    pacer = FlushPacer(period=0.066)
    assert pacer.delay(10.0) == 0.0
    pacer.flushed(10.0, 10.002)
    assert pacer.delay(10.030) > 0.0
    assert pacer.delay(10.5) == 0.0


def test_a_slow_flush_leaves_the_loop_free_as_long_as_it_took():
    """A flush that took 80 ms (longer than the period) is followed by 80 ms without one."""
    pacer = FlushPacer(period=0.066)
    pacer.flushed(1.0, 1.080)
    assert abs(pacer.delay(1.080) - 0.080) < 1e-9
    pacer.flushed(2.0, 2.010)
    assert abs(pacer.delay(2.010) - 0.056) < 1e-9


async def test_the_reply_flushes_on_arrival_and_holds_text_right_behind_for_the_period():
    """A reply flushes its first text when it arrives (no timer tick to wait for) and holds the
    text that follows until its period has passed; finish renders the rest."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = AssistantMessage(flush_interval=30.0)  # a period no test waits out
        await app.chat.mount(reply)
        await pilot.pause()
        reply.append("Hello")
        deadline = time.monotonic() + 10  # a hang guard, not a timing claim
        while reply.flush_count == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert reply.flush_count == 1
        reply.append(" world")
        await pilot.pause(0.3)
        assert reply.flush_count == 1
        await reply.finish()
        await pilot.pause()
        assert reply.rendered_text == "Hello world"
