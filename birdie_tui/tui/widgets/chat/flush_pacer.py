"""When a streaming reply's next flush may start: the rule, apart from the widget and its clock.

A flush used to run on a fixed 100 ms timer, so the screen advanced at most 10 times a second
and the worst stale stretch in a real terminal was 155-206 ms (bench/RESULTS.md §31, §32).
Text now arrives in ~33 ms windows (`providers/coalesce.py`), so a flush is asked for when
text arrives and starts as soon as both rules allow:
- `period` after the last flush started (10 a second: each flush is a layout and a paint, and
  15 a second measured 164 -> 126 ms of worst staleness for +18-27 % of the CPU, the issue's
  other target, §32; after cheaper frames, 109-110 ms for +25 %, §38; after cheaper appends,
  94-137 ms, §41);
- the loop free at least as long as the last flush took (keys keep being answered however
  slow rendering gets).
The first text after a pause is flushed at once.
"""

from __future__ import annotations

FLUSH_PERIOD = 1 / 10


class FlushPacer:
    """The earliest time the next flush may start, from when the last one started and ended."""

    def __init__(self, period: float = FLUSH_PERIOD) -> None:
        self.period = period
        self._next = float("-inf")

    def delay(self, now: float) -> float:
        """Seconds from `now` until a flush may start (0: at once)."""
        return max(0.0, self._next - now)

    def flushed(self, started: float, ended: float) -> None:
        """A flush ran from `started` to `ended` (the same clock as `delay`'s `now`)."""
        self._next = max(started + self.period, ended + (ended - started))
