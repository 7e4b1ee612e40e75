"""The UI's garbage collection policy: after a streamed reply, survivors are frozen (later full
passes do not walk them again), and frozen objects that die are still freed within
`THAW_EVERY` turns."""

from __future__ import annotations

import gc
import os
import sys
import weakref

import pytest

from birdie_tui.tui import collector


class Node:
    """An object in a reference cycle: only the cyclic collector can free it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def fresh_collector():
    """The collector's turn count from zero, and nothing left frozen for other tests."""
    collector._turns = 0
    yield
    collector._turns = 0
    gc.unfreeze()


def one_turn() -> None:
    collector.stream_started()
    collector.stream_ended()


def test_a_turn_freezes_what_survives_it(fresh_collector):
    """After a reply, what is alive is frozen: a full pass no longer walks it."""
    gc.unfreeze()
    keep = [Node() for _ in range(1000)]
    before = gc.get_freeze_count()
    one_turn()
    assert gc.get_freeze_count() >= before + 1000
    walked = {id(obj) for obj in gc.get_objects()}  # what a full pass walks: not the frozen
    assert not any(id(k) in walked for k in keep)


def test_frozen_garbage_is_freed_within_thaw_every_turns(fresh_collector):
    """A cycle that was alive when frozen and then dropped survives ordinary passes, and is
    freed by the pass that thaws everything, at the latest THAW_EVERY turns later."""
    node = Node()
    one_turn()  # frozen alive
    ref = weakref.ref(node)
    del node
    freed_at = None
    for turn in range(1, collector.THAW_EVERY + 1):
        one_turn()
        gc.collect()
        if ref() is None:
            freed_at = turn
            break
    assert freed_at is not None and freed_at <= collector.THAW_EVERY
    assert freed_at > 1  # not at once: the frozen heap is not walked every turn


def test_no_full_pass_while_a_stream_runs_and_none_walks_the_frozen(fresh_collector):
    """Two overlapping streams hold full passes until both end; the pass after the last one
    frees the turn's own cyclic garbage (it was never frozen)."""
    before = gc.get_threshold()
    collector.stream_started()
    collector.stream_started()
    assert gc.get_threshold()[2] == collector.NO_FULL_PASS
    node = Node()
    ref = weakref.ref(node)
    del node
    collector.stream_ended()
    assert collector.holding() and gc.get_threshold()[2] == collector.NO_FULL_PASS
    collector.stream_ended()
    assert not collector.holding() and gc.get_threshold() == before
    assert ref() is None


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux") or
                    not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"),
                    reason="malloc_trim is glibc's")
def test_freed_heap_goes_back_to_the_os():
    """Blocks freed under a block still in use stay in the RSS until `return_freed` (glibc's
    malloc_trim) hands their pages back."""
    blocks = [bytearray(64 * 1024) for _ in range(800)]  # ~50 MiB on the heap, not mmap'd
    pin = bytearray(64 * 1024)  # above them: the heap's top cannot shrink past it
    del blocks
    before = rss_mib()
    collector.return_freed()
    assert before - rss_mib() > 20
    del pin


def test_a_turn_returns_freed_memory_once_it_has_ended(fresh_collector, monkeypatch):
    """The trim runs after a turn's collection, never while a reply streams; where there is no
    glibc it is a no-op."""
    calls: list[int] = []
    monkeypatch.setattr(collector, "_trim", calls.append)
    collector.stream_started()
    collector.stream_started()
    collector.stream_ended()
    assert calls == []  # one stream still runs
    collector.stream_ended()
    assert calls == [0]
    collector.boot_done(collect=False)  # a message waits: no pass, no trim
    assert calls == [0]
    monkeypatch.setattr(collector, "_trim", None)
    monkeypatch.setattr(collector.os, "confstr", lambda name: None)  # not glibc
    collector.return_freed()
    assert collector._trim is None
