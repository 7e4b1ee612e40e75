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


def written_holder(home: Path) -> str | None:
    """"<host>:<pid>" as the lock file says, without locking it (a probe's own lock, however
    short, could make a scheduler starting at that moment fail): for the message of the one
    that just failed to acquire it."""
    info = _info(Path(home) / LOCK_NAME)
    return f"{info['host']}:{info['pid']}" if "host" in info and "pid" in info else None


def holder(home: Path) -> str | None:
    """"<host>:<pid>" of the scheduler running for `home`, or None. Read, never locked to test
    (a probe's own lock, however short, could make a scheduler starting at that moment fail):
    a lock of this machine counts while its pid is alive (the file outlives a SIGKILL); one
    written by another machine (a home shared over the network) counts as the file says,
    since this machine cannot see that process."""
    info = _info(Path(home) / LOCK_NAME)
    try:
        host, pid = str(info["host"]), int(info["pid"])
    except (KeyError, TypeError, ValueError):
        return None  # none, or a file being written: nobody known
    if host == socket.gethostname() and not _alive(pid):
        return None
    return f"{host}:{pid}"


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    except OSError:
        return False
    return True


def _info(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
