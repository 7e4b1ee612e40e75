"""A change reaches the terminal in the next frame: two Textual fixes to when a frame is drawn.

A widget's refresh reaches its screen as a message; when the screen goes idle it resumes its
update timer (`Screen._on_idle`), which draws the frame at most 60 times a second. Two things
held a ready frame back while a reply streamed (bench/RESULTS.md §43):

- **A batch's end prompts the app, not the screen.** The screen skips the resume while a batch
  is open, and `App._end_batch` calls `self.check_idle()`, not the screen's. So a refresh asked
  for inside `App.batch_update` waits for whatever next posts to the screen: a key, a cursor
  blink, a timer; where nothing else happens it is not drawn at all. `Markdown.append` mounts a
  new block inside a batch. `BatchFrameApp` prompts the screen when the last batch ends (as
  `App.delay_update` already refreshes it). Upstream: `self.screen.check_idle()` next to
  `self.check_idle()` in `App._end_batch`.
- **The update timer skips one tick too many.** `Timer._run` with `skip` moves a late timer to
  `count = int((now - start) / interval + 1)` and then waits for tick `count + 1`: the tick after
  the next. The screen's timer is always late when resumed (it was paused), so a frame asked
  for within 33 ms of the last one waited 17-33 ms instead of at most 17: every cursor blink
  just before a flush delayed that flush's frame. `FrameTimer` ticks when resumed, at most once
  an interval after its last tick; `FrameTimedScreen` uses it for its update timer. Upstream:
  `count = int((now - start) / _interval)` in `Timer._run`.
"""

from __future__ import annotations

from textual._time import get_time, sleep
from textual.app import App, ReturnType
from textual.screen import UPDATE_PERIOD, Screen, ScreenResultType
from textual.timer import EventTargetGone, Timer


class BatchFrameApp(App[ReturnType]):
    """An app whose screen is prompted when the last open batch ends."""

    def _end_batch(self) -> None:
        super()._end_batch()
        if not self._batch_count:
            stack = self._screen_stack
            if stack:  # none yet while the app starts, none left while it closes
                stack[-1].check_idle()


class FrameTimer(Timer):
    """Ticks as soon as it is resumed, unless it ticked less than an interval ago; then it waits
    for the rest of the interval. (The screen pauses it in every tick; `reset` is not used.)"""

    async def _run(self) -> None:
        last = float("-inf")
        count = 0
        while True:
            await self._active.wait()
            wait = last + self._interval - get_time()
            if wait > 0:
                await sleep(wait)
                await self._active.wait()
            last = get_time()
            count += 1
            try:
                await self._tick(next_timer=last, count=count)
            except EventTargetGone:
                break


class FrameTimedScreen(Screen[ScreenResultType]):
    """A screen whose update timer is a `FrameTimer`."""

    _frame_timer: Timer | None = None

    @property
    def _update_timer(self) -> Timer:
        if self._frame_timer is None:  # made as `Screen._update_timer` makes its own
            timer = FrameTimer(self, UPDATE_PERIOD, name="screen_update",
                               callback=self._on_timer_update, pause=True)
            timer._start()
            self._timers.add(timer)
            self._frame_timer = timer
        return self._frame_timer
