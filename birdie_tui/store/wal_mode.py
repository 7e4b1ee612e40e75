"""Switching an sqlite file to WAL mode when other processes may be opening it at that moment.

The switch takes an exclusive lock, and while another connection holds a write transaction
sqlite answers "database is locked" at once instead of calling the busy handler. Two processes
opening a new database together (two schedulers, `agents run` beside the TUI) hit that. The mode
is stored in the file, so once one of them has switched it the others' switch is a no-op: a
retry until the busy timeout is enough.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

__all__ = ["ensure_wal", "switch_to_wal"]

_FIRST_PAUSE = 0.005
_LONGEST_PAUSE = 0.1


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def switch_to_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """`PRAGMA journal_mode=WAL` on `conn`, retried while another connection holds the lock,
    for up to `timeout` seconds; any other error, or the lock held longer, propagates."""
    deadline = time.monotonic() + timeout
    pause = _FIRST_PAUSE
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL").fetchall()
            return
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, _LONGEST_PAUSE)


def ensure_wal(path: Path, timeout: float = 30.0) -> None:
    """The database at `path` (created if missing) in WAL mode before a library that switches
    it without retrying opens it."""
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        switch_to_wal(conn, timeout)
    finally:
        conn.close()
