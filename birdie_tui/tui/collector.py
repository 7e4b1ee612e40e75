"""When the garbage collector's full passes run in the UI, and what they walk.

A full pass walks every tracked object, and a Textual chat holds hundreds of thousands (each
widget's box models, caches, styles): 50-100 ms a pass at turn 1, 0.5-1 s at turn 300, each a
frozen screen (bench/RESULTS.md §19, §23). The rules:

- At boot, what exists once Birdie has started lives as long as the app: it is frozen, out of
  every pass's sight (`boot_done`).
- While a reply streams or history is rebuilt, full passes wait (`stream_started` /
  `stream_ended`, `paused`): they would find little to free and stall the frames.
- After each streamed reply, one pass collects what the turn left, then what survives is frozen
  too (`stream_ended`), so the next pass walks only what came after: a turn's pass costs the
  turn, not the session. A frozen object that dies later (a reply's replaced blocks, a pruned
  entry) is garbage no pass sees, so every `THAW_EVERY` turns everything is thawed and
  collected once: the memory such garbage holds stays bounded.
- After each of those passes (the boot's and a turn's), the app is idle: the heap pages the pass
  and the turn freed go back to the OS (glibc's `malloc_trim(0)`; nothing elsewhere). Without
  it, Python's freed blocks stay in the process's RSS until reused (bench/RESULTS.md §30).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

NO_FULL_PASS = 1 << 30  # gen-1 collections before a full one: never, in practice
THAW_EVERY = 25  # turns between passes that walk everything

_streams = 0
_saved: tuple[int, int, int] | None = None
_turns = 0  # streamed replies settled since the last thaw
_trim: Callable[[int], int] | None = None  # glibc's malloc_trim, once looked up


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library is not glibc (macOS, musl)."""
    global _trim
    if _trim is None:
        try:
            glibc = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"; an error elsewhere
        except (AttributeError, ValueError, OSError):
            glibc = None
        if not glibc or not glibc.startswith("glibc"):
            return None
        import ctypes  # only here: the app never needs it otherwise

        _trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    return _trim


def return_freed() -> None:
    """Give the heap pages freed so far back to the OS (well under a millisecond; the caller
    runs it when the app is idle, after a collection)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def boot_done(collect: bool = True) -> None:
    """Birdie has started: collect the boot's garbage (unless a message waits) and freeze the
    rest, which lives as long as the app."""
    if collect:
        gc.collect()
    gc.freeze()
    if collect:
        return_freed()


def app_closing() -> None:
    """What was frozen may be collected again (an app that ends inside a longer process)."""
    gc.unfreeze()


@contextmanager
def paused() -> Iterator[None]:
    """No collection at all while history is rebuilt: building hundreds of widgets set off
    full passes (~1 s for a 5,000-message session) that found nothing to free."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def stream_started() -> None:
    """A reply began streaming: hold full collections (until every stream has ended)."""
    global _streams, _saved
    if _streams == 0:
        _saved = gc.get_threshold()
        gc.set_threshold(_saved[0], _saved[1], NO_FULL_PASS)
    _streams += 1


def stream_ended() -> None:
    """A reply stopped streaming (call it once its end is on screen): the last one gives the
    thresholds back and settles the turn's garbage."""
    global _streams, _saved
    if _streams == 0:
        return
    _streams -= 1
    if _streams == 0 and _saved is not None:
        gc.set_threshold(*_saved)
        _saved = None
        _settle()


def _settle() -> None:
    global _turns
    _turns += 1
    if _turns >= THAW_EVERY:
        _turns = 0
        gc.unfreeze()
    gc.collect()
    gc.freeze()
    return_freed()


def holding() -> bool:
    """Whether full collections are held now (tests, diagnostics)."""
    return _streams > 0
