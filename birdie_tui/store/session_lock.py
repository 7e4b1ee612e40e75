"""Locks that let several processes share one user's sessions (a TUI and `--print`s, say).

- The turn lock, ``<id>.lock`` next to ``<id>.json``: an ``fcntl.flock`` held while one turn
  runs on the session (its history and its counts change). The holder writes its PID into the
  file, so a process that has to wait can say for whom. The kernel drops a flock when its holder
  dies, SIGKILL included: a crash never leaves a session locked.
- The write lock, ``.sessions.lock`` in the user's folder: held for the milliseconds of a
  read-modify-write of a session JSON, so a skill toggled in one process and a turn counted in
  another both land. Re-entrant within a thread; threads of one process take turns too.

Both are advisory: Birdie itself does not take them. File descriptors are not inherited by
child processes (Python's default), so a tool still running after its parent died holds nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["WRITE_LOCK_NAME", "TurnLock", "try_flock", "write_lock"]

WRITE_LOCK_NAME = ".sessions.lock"
# A write lock is held for a JSON write; past this a holder is stuck (stopped, say), and a
# write goes ahead unlocked rather than hang the app.
WRITE_LOCK_PATIENCE = 10.0


def try_flock(path: Path, write: bytes = b"") -> int | None:
    """A descriptor holding an exclusive flock on `path` (made if missing), `write` written into
    it (who holds it, for whoever waits: the lock does not depend on it); None when another
    process holds it. Never blocks."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    if write:
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, write, 0)
        except OSError:
            pass
    return fd


class TurnLock:
    """One session's turn lock (see the module docstring). Not re-entrant."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock if it is free (never blocks); True when this object holds it."""
        if self._fd is not None:
            return True
        self._fd = try_flock(self.path, f"{os.getpid()}\n".encode())
        return self._fd is not None

    def holder(self) -> int | None:
        """The PID written by the process holding (or that last held) the lock, if readable."""
        try:
            text = self.path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


_guard = threading.Lock()
_held: dict[str, tuple[threading.RLock, list[int]]] = {}  # path -> (thread lock, [depth, fd])


@contextlib.contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """Hold the write lock at `path` (created if missing) for the duration of the block."""
    key = str(path)
    with _guard:
        rlock, state = _held.setdefault(key, (threading.RLock(), [0, -1]))
    with rlock:
        if state[0] == 0:
            state[1] = _flock_patiently(path)
        state[0] += 1
        try:
            yield
        finally:
            state[0] -= 1
            if state[0] == 0:
                fd, state[1] = state[1], -1
                if fd >= 0:
                    os.close(fd)  # closing the descriptor drops its flock


def _flock_patiently(path: Path) -> int:
    """A descriptor holding the flock on `path`, or -1 (go ahead unlocked) when the file
    cannot be opened or the lock stays taken for WRITE_LOCK_PATIENCE seconds."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return -1
    deadline = time.monotonic() + WRITE_LOCK_PATIENCE
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return -1
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        except OSError:
            os.close(fd)
            return -1
