"""A new sqlite file switched to WAL while another process is writing it: opening waits for the
writer instead of failing at once with "database is locked" (sqlite does not call the busy
handler for that switch)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from birdie_tui.agent.checkpointer import open_checkpointer
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import SqliteRunLog
from birdie_tui.store.wal_mode import ensure_wal, switch_to_wal

HOLD_SECONDS = 0.4


@contextmanager
def writer_holding(path: Path, seconds: float = HOLD_SECONDS) -> Iterator[None]:
    """Another connection inside a write transaction on the new file at `path` (rollback
    mode, as a second process is while it creates its tables), committing after `seconds`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("CREATE TABLE theirs (x)")
    timer = threading.Timer(seconds, lambda: holder.execute("COMMIT"))
    timer.start()
    try:
        yield
    finally:
        timer.join()
        holder.close()


def test_the_plain_switch_fails_at_once_while_a_writer_holds_the_file(tmp_path: Path) -> None:
    """What the retry is for: sqlite's own switch does not wait, whatever the busy timeout."""
    db = tmp_path / "x.db"
    with writer_holding(db):
        conn = sqlite3.connect(db, timeout=30, isolation_level=None)
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            conn.execute("PRAGMA journal_mode=WAL")
        assert time.monotonic() - started < HOLD_SECONDS
        conn.close()


def test_the_switch_waits_for_the_writer(tmp_path: Path) -> None:
    """`ensure_wal` returns once the writer commits; the file is in WAL mode, their table kept."""
    db = tmp_path / "x.db"
    with writer_holding(db):
        ensure_wal(db)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("theirs",)]
    conn.close()


def test_a_writer_holding_past_the_timeout_is_the_lock_error(tmp_path: Path) -> None:
    """The retry gives up at the timeout with sqlite's own error: it never hangs."""
    db = tmp_path / "x.db"
    with writer_holding(db, seconds=1.0):
        conn = sqlite3.connect(db, timeout=0.2, isolation_level=None)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            switch_to_wal(conn, timeout=0.2)
        conn.close()


def test_other_errors_are_not_retried(tmp_path: Path) -> None:
    """A file that is not a database fails at once, for the callers to move it aside."""
    (tmp_path / "x.db").write_bytes(b"not a database at all" * 10)
    conn = sqlite3.connect(tmp_path / "x.db", timeout=30, isolation_level=None)
    started = time.monotonic()
    with pytest.raises(sqlite3.DatabaseError, match="not a database"):
        switch_to_wal(conn, timeout=30)
    assert time.monotonic() - started < 5
    conn.close()


def test_the_run_log_opens_while_another_process_creates_it(tmp_path: Path) -> None:
    """Two schedulers starting together: the second waits, then reads the same log."""
    paths = BirdiePaths(tmp_path)
    with writer_holding(paths.runs_db("alice")):
        log = SqliteRunLog(paths, "alice")
    assert log.list() == []
    log.close()


async def test_the_checkpointer_opens_while_another_process_creates_it(tmp_path: Path) -> None:
    """`agents run` beside the TUI on a new home: LangGraph's setup no longer fails locked."""
    db = tmp_path / "checkpoints.db"
    with writer_holding(db):
        conn, saver = await open_checkpointer(db)
    try:
        assert await saver.aget_tuple({"configurable": {"thread_id": "t"}}) is None
    finally:
        await conn.close()
