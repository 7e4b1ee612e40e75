"""While a reply streams, the garbage collector's full passes wait until it has ended.

A streamed reply creates tens of thousands of objects that outlive the young generations
(strips and their caches, Markdown blocks, the turn's message chunks), so Python's full
collection kept running mid-stream: measured 50-100 ms each at turn 1 and ~460 ms with 150
turns above (bench/RESULTS.md §19), each one a frozen screen. Young collections still run; the
full pass that was due runs as soon as the last stream ends, while the user reads.
"""

from __future__ import annotations

import gc

NO_FULL_PASS = 1 << 30  # gen-1 collections before a full one: never, in practice

_streams = 0
_saved: tuple[int, int, int] | None = None


def stream_started() -> None:
    """A reply began streaming: hold full collections (until every stream has ended)."""
    global _streams, _saved
    if _streams == 0:
        _saved = gc.get_threshold()
        gc.set_threshold(_saved[0], _saved[1], NO_FULL_PASS)
    _streams += 1


def stream_ended() -> None:
    """A reply stopped streaming: the last one gives the collector its thresholds back."""
    global _streams, _saved
    if _streams == 0:
        return
    _streams -= 1
    if _streams == 0 and _saved is not None:
        gc.set_threshold(*_saved)
        _saved = None


def holding() -> bool:
    """Whether full collections are held now (tests, diagnostics)."""
    return _streams > 0
