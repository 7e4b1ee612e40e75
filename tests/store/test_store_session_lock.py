"""The locks that let processes share sessions: a session's turn lock (held by a real other
process, dropped when it is SIGKILLed) and the user's write lock around JSON updates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from birdie_tui.store import BirdiePaths, SessionStore
from birdie_tui.store.session_lock import TurnLock, write_lock

REPO = Path(__file__).resolve().parents[2]

HOLD = r"""
import sys, time
from pathlib import Path
from birdie_tui.store.session_lock import TurnLock, write_lock
kind, path = sys.argv[1:3]
if kind == "turn":
    lock = TurnLock(Path(path))
    assert lock.try_acquire()
    print("held", flush=True)
    time.sleep(60)
else:
    with write_lock(Path(path)):
        print("held", flush=True)
        time.sleep(0.3)
        Path(sys.argv[3]).touch()  # just before letting go
"""


def _hold(kind: str, path: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", HOLD, kind, str(path), *extra], env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_turn_lock_held_elsewhere_names_its_holder_and_dies_with_it(tmp_path):
    """Another process holds the turn lock: it cannot be taken, the holder's PID is readable;
    once that process is SIGKILLed the lock is free (the kernel drops it)."""
    path = tmp_path / "2026-01-01_1.lock"
    holder = _hold("turn", path)
    try:
        lock = TurnLock(path)
        assert not lock.try_acquire() and not lock.held
        assert lock.holder() == holder.pid
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
    assert lock.try_acquire() and lock.held
    assert lock.holder() == os.getpid()
    assert not TurnLock(path).try_acquire()  # a second descriptor, even in this process
    lock.release()
    assert TurnLock(path).try_acquire()


def test_the_write_lock_is_reentrant_here_and_exclusive_across_processes(tmp_path):
    """Nested use in one thread does not deadlock; another process waits for the holder."""
    path = tmp_path / ".sessions.lock"
    with write_lock(path):
        with write_lock(path):
            pass
    released = tmp_path / "released"
    holder = _hold("write", path, str(released))
    with write_lock(path):
        assert released.exists()  # taken only once the other process let go
    holder.wait(10)


def test_the_turn_lock_sits_next_to_the_session_and_goes_with_it(tmp_path):
    """`<id>.lock` next to `<id>.json`; deleting the session removes it; it is not a session."""
    store = SessionStore(BirdiePaths(tmp_path), "alice")
    meta = store.create()
    lock = store.turn_lock(meta.id)
    assert lock.path == tmp_path / "sessions" / "alice" / f"{meta.id}.lock"
    assert lock.try_acquire()
    lock.release()
    assert [m.id for m in store.list(include_empty=True)] == [meta.id]
    store.delete(meta.id)
    assert not lock.path.exists()
