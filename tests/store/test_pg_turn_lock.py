"""The turn lock on a shared database: one holder per session across connections, the
holder named, and a dead process's lock gone with its connection."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest

from birdie_tui.store.pg.sessions import PgSessionStore
from birdie_tui.store.pg.turn_lock import lock_key

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(pg_url):
    s = PgSessionStore(pg_url, "alice")
    yield s
    s.close()


def test_one_holder_at_a_time_and_the_holder_is_named(pg_url, store):
    """One holder at a time and the holder is named."""
    sid = store.create(date(2026, 1, 1)).id
    mine = store.turn_lock(sid)
    theirs = PgSessionStore(pg_url, "bob").turn_lock(sid)
    assert mine.try_acquire() and mine.held
    assert mine.try_acquire()  # already held by this object: still True
    assert not theirs.try_acquire() and not theirs.held
    assert theirs.holder() == f"alice@{socket.gethostname()} pid {os.getpid()}"
    mine.release()
    assert not mine.held
    assert theirs.try_acquire()
    assert mine.holder().startswith("bob@")
    theirs.release()
    assert mine.holder() is None


def test_locks_of_different_sessions_are_independent(store):
    """Locks of different sessions are independent."""
    one, two = store.create(date(2026, 1, 1)).id, store.create(date(2026, 1, 1)).id
    assert lock_key(one) != lock_key(two)
    a, b = store.turn_lock(one), store.turn_lock(two)
    assert a.try_acquire() and b.try_acquire()
    a.release()
    b.release()


HOLD = r"""
import sys, time
from birdie_tui.store.pg.sessions import PgSessionStore
url, sid = sys.argv[1:3]
lock = PgSessionStore(url, "carol").turn_lock(sid)
assert lock.try_acquire()
print("held", flush=True)
time.sleep(600)
"""


def test_a_killed_holder_leaves_the_session_free(pg_url, store):
    """A killed holder leaves the session free."""
    sid = store.create(date(2026, 1, 1)).id
    proc = subprocess.Popen([sys.executable, "-c", HOLD, pg_url, sid], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        lock = store.turn_lock(sid)
        assert not lock.try_acquire()
        assert lock.holder() == f"carol@{socket.gethostname()} pid {proc.pid}"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        # The server notices the closed socket at once; poll briefly for the backend to exit.
        for _ in range(200):
            if lock.try_acquire():
                break
            time.sleep(0.05)
        assert lock.held
        lock.release()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
