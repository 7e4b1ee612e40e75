"""Telling a usable checkpoints.db from a damaged one, and moving a damaged one aside whole."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from birdie_tui.store.checkpoint_db import check_database, database_problem
from birdie_tui.store.recovery import add_listener


def make_db(path: Path, rows: int = 400) -> Path:
    """A real WAL-mode sqlite file, big enough to span many pages."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    with conn:
        conn.execute("CREATE TABLE checkpoints (thread_id TEXT, blob BLOB)")
        conn.executemany("INSERT INTO checkpoints VALUES (?, ?)",
                         [(f"2026-01-01_{i}", b"x" * 900) for i in range(rows)])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def test_missing_empty_and_healthy_files_are_fine(tmp_path: Path) -> None:
    """A missing, zero-byte or healthy database file reports no problem."""
    assert database_problem(tmp_path / "none.db") is None
    (tmp_path / "empty.db").touch()
    assert database_problem(tmp_path / "empty.db") is None
    assert database_problem(make_db(tmp_path / "ok.db")) is None


def test_garbage_is_not_a_database(tmp_path: Path) -> None:
    """A file of random bytes is reported as not an SQLite database."""
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"\x00\xffnot sqlite at all" * 400)
    assert database_problem(bad) == "is not an SQLite database"


def test_a_truncated_file_is_caught(tmp_path: Path) -> None:
    """A database cut to half its size is reported as truncated."""
    db = make_db(tmp_path / "cut.db")
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    problem = database_problem(db)
    assert problem is not None and problem.startswith("is truncated")


def test_damaged_pages_are_caught_by_the_quick_check(tmp_path: Path) -> None:
    """Overwritten b-tree pages are reported as damaged by the quick check."""
    db = make_db(tmp_path / "scribbled.db")
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page * 3: page * 3 + 200] = b"\xab" * 200  # overwrite part of a b-tree page
    db.write_bytes(bytes(data))
    problem = database_problem(db)
    assert problem is not None and problem.startswith("is damaged")


@pytest.mark.parametrize("companions", [(), ("-wal", "-shm", "-journal")])
def test_check_moves_the_database_and_its_companions_aside(tmp_path: Path, companions) -> None:
    """A bad database and its -wal/-shm/-journal files move aside together; one announced line."""
    db = tmp_path / "checkpoints.db"
    db.write_bytes(b"garbage" * 100)
    for suffix in companions:
        (tmp_path / f"checkpoints.db{suffix}").write_bytes(b"leftover")
    heard: list[str] = []
    remove = add_listener(heard.append)
    try:
        target = check_database(db, logs_dir=tmp_path / "logs")
    finally:
        remove()
    assert target is not None and target.name.startswith("checkpoints.db.corrupt-")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "logs") == sorted(
        [target.name, *(target.name + s for s in companions)])
    [message] = heard
    assert "checkpoints.db is not an SQLite database" in message and str(target) in message
    assert message in (tmp_path / "logs" / "birdie-tui.log").read_text()


def test_check_leaves_a_healthy_database_alone(tmp_path: Path) -> None:
    """A healthy database is neither moved nor reported."""
    db = make_db(tmp_path / "checkpoints.db")
    assert check_database(db) is None and db.exists()


def test_a_short_file_with_a_wal_is_left_to_the_quick_check(tmp_path: Path) -> None:
    """A checkpoint cut short can leave the file shorter than its header says while the WAL
    still holds every page: that database is not damaged and must not be moved aside."""
    db = make_db(tmp_path / "ok.db", rows=50)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_autocheckpoint=0")
    with conn:  # new pages that live only in the WAL
        conn.executemany("INSERT INTO checkpoints VALUES (?, ?)",
                         [(f"2026-01-02_{i}", b"y" * 900) for i in range(200)])
    data = bytearray(db.read_bytes())
    # Pretend page 1 was checkpointed (a page count the file does not reach yet).
    page_size = int.from_bytes(data[16:18], "big")
    pages = len(data) // page_size + 50
    data[28:32] = pages.to_bytes(4, "big")
    db.write_bytes(bytes(data))
    try:
        assert (tmp_path / "ok.db-wal").stat().st_size > 0
        problem = database_problem(db)
        assert problem is None or not problem.startswith("is truncated")
    finally:
        conn.close()
