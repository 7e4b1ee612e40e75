"""One scheduler per home: `$BIRDIE_HOME/scheduler.lock`, held with `fcntl.flock` by
`agents start` for as long as it runs, holding JSON {"host", "pid", "started_at"}.

The kernel drops a flock when its process dies (even by SIGKILL), so a stale file never
blocks the next scheduler: what the file says counts only while someone holds the lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from birdie_tui.store.session_lock import try_flock

LOCK_NAME = "scheduler.lock"


class SchedulerLock:
    """The lock file of one home. `acquire()` once; `release()` (or the process's end) frees it."""

    def __init__(self, home: Path) -> None:
        self.path = Path(home) / LOCK_NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> bool:
        """True if this process now holds the lock; False if another does."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        info = {"host": socket.gethostname(), "pid": os.getpid(),
                "started_at": datetime.now(timezone.utc).isoformat()}
        self._fd = try_flock(self.path, json.dumps(info).encode())
        return self._fd is not None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def holder_info(home: Path) -> dict[str, Any] | None:
    """What the lock's holder wrote, while a live process holds it; None when nobody does."""
    path = Path(home) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # held: read what the holder wrote
            return _info(path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def written_holder(home: Path) -> str | None:
    """"<host>:<pid>" as the lock file says, without locking it (a probe's own lock, however
    short, could make a scheduler starting at that moment fail): for the message of the one
    that just failed to acquire it."""
    info = _info(Path(home) / LOCK_NAME)
    return f"{info['host']}:{info['pid']}" if "host" in info and "pid" in info else None


def holder(home: Path) -> str | None:
    """"<host>:<pid>" of the scheduler holding the home's lock, or None."""
    info = holder_info(home)
    if info is None:
        return None
    return f"{info.get('host', '?')}:{info.get('pid', '?')}"


def _info(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
