"""A change reaches the screen in the next frame: when a batch ends, and soon after a frame.

The app tests wait with `asyncio.sleep`, never `Pilot.pause`: the pilot calls the screen's
update by hand, which is what hides the problem. The timer tests run on a fake clock.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
import textual.timer
from textual import _time
from textual._context import active_app
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from birdie_tui.tui import frame_timing
from birdie_tui.tui.app import BirdieApp
from birdie_tui.tui.frame_timing import BatchFrameApp, FrameTimedScreen, FrameTimer
from birdie_tui.tui.main_screen import MainScreen


class CountingScreen(Screen[None]):
    layouts = 0

    def compose(self) -> ComposeResult:
        yield Static("one row", id="tail")

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self.layouts += 1
        super()._refresh_layout(size, scroll)


class Fixed(BatchFrameApp[None]):
    def on_mount(self) -> None:
        self.push_screen(CountingScreen())


class Plain(App[None]):
    on_mount = Fixed.on_mount


async def _layouts_after_a_batch(app: App[Any]) -> list[int]:
    """Grow a Static inside a batch that spans an await (as a mount does), then wait: how many
    layouts the screen made, and whether the new height is laid out, for each of three batches."""
    seen = []
    async with app.run_test(size=(40, 12)):
        await asyncio.sleep(0.2)
        screen = app.screen
        assert isinstance(screen, CountingScreen)
        tail = screen.query_one("#tail", Static)
        for rows in (3, 5, 7):
            before = screen.layouts
            with app.batch_update():
                tail.update("\n".join(["row"] * rows))
                await asyncio.sleep(0.01)  # the screen gets the Layout message in the batch
            for _ in range(50):  # the change shows within a frame; give it far longer
                await asyncio.sleep(0.01)
                if tail.size.height == rows:
                    break
            seen.append(screen.layouts - before if tail.size.height == rows else 0)
    return seen


async def test_a_change_made_in_a_batch_is_laid_out_when_it_ends() -> None:
    """A Static grown inside a batch is laid out at its new height with no other event."""
    assert all(n >= 1 for n in await _layouts_after_a_batch(Fixed()))


async def test_textual_alone_still_waits_for_the_next_event() -> None:
    """When this fails, Textual draws a batch's change by itself: `BatchFrameApp` can go."""
    assert await _layouts_after_a_batch(Plain()) == [0, 0, 0]


async def test_the_app_and_its_main_screen_carry_the_fixes() -> None:
    """Birdie's app prompts its screen after a batch; its main screen draws with `FrameTimer`."""
    assert issubclass(BirdieApp, BatchFrameApp)
    assert issubclass(MainScreen, FrameTimedScreen)
    timer = MainScreen()._update_timer
    assert isinstance(timer, FrameTimer)
    timer.stop()


class Clock:
    """Time that moves only when a test says so; `sleep` wakes when the clock passes its end."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def get_time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self.sleepers.append((self.now + seconds, future))
        await future

    async def advance(self, to: float) -> None:
        """Move to `to`, waking each sleeper whose end it passes at that end, in order."""
        await _settle()
        while due := [sleeper for sleeper in self.sleepers if sleeper[0] <= to]:
            sleeper = min(due, key=lambda sleeper: sleeper[0])
            self.sleepers.remove(sleeper)
            self.now = sleeper[0]
            sleeper[1].set_result(None)
            await _settle()
        self.now = to


class Target:
    """What a timer holds a weak reference to."""


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


PERIOD = 1 / 60


async def _frame_after_a_recent_one(timer_class: type[Timer], clock: Clock) -> float:
    """A frame timer as the screen runs it (each tick pauses it), long idle, is resumed at 20.0
    and again 5 ms after that tick: how long after the first tick the second one comes."""
    ticks: list[float] = []

    def tick() -> None:
        timer.pause()
        ticks.append(clock.now)

    errors: list[BaseException] = []
    # What a timer's tick asks of its app.
    active_app.set(SimpleNamespace(  # type: ignore[arg-type]
        _exit=False, features=frozenset(), _handle_exception=errors.append))
    target = Target()  # a timer holds its target weakly, and calls `tick` instead of posting
    timer = timer_class(target, PERIOD, callback=tick, pause=True)  # type: ignore[arg-type]
    timer._start()
    try:
        for at in (10.0, 10.2, 20.0):  # frames now and then, then a long idle stretch
            await clock.advance(at)
            timer.resume()
            await _settle()
        first = ticks[-1]
        assert first == 20.0
        await clock.advance(first + 0.005)
        timer.resume()
        await clock.advance(first + 0.1)
        assert not errors
        return ticks[-1] - first
    finally:
        timer.stop()


async def test_a_frame_asked_for_soon_after_the_last_waits_only_for_the_rest_of_its_period(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Resumed 5 ms after its last tick, the frame timer ticks one period after that tick."""
    clock = Clock(0.0)
    monkeypatch.setattr(frame_timing, "get_time", clock.get_time)
    monkeypatch.setattr(frame_timing, "sleep", clock.sleep)
    assert await _frame_after_a_recent_one(FrameTimer, clock) == pytest.approx(PERIOD)


async def test_textuals_timer_still_skips_a_tick_too_many(monkeypatch: pytest.MonkeyPatch) -> None:
    """When this fails, Textual's own timer waits only for its next tick: `FrameTimer` can go."""
    clock = Clock(0.0)
    monkeypatch.setattr(_time, "get_time", clock.get_time)
    monkeypatch.setattr(textual.timer, "sleep", clock.sleep)
    assert await _frame_after_a_recent_one(Timer, clock) > 1.5 * PERIOD
