"""Checking `checkpoints.db` before LangGraph opens it, and moving an unusable one aside.

A garbage or truncated database must never kill a run nor be reused silently: the file and its
`-wal`/`-shm`/`-journal` companions are renamed `*.corrupt-<timestamp>`, the move is announced
on the recovery bus, and the caller starts on a fresh database. Plain sqlite3, no LangGraph.
"""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

from .jsonio import move_aside
from .recovery import announce

__all__ = ["COMPANION_SUFFIXES", "check_database", "database_problem", "move_database_aside"]

COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")
_MAGIC = b"SQLite format 3\x00"


def database_problem(path: Path) -> str | None:
    """Why the sqlite file at `path` cannot be used, or None if it can (or does not exist)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError:
        return None  # missing, a directory, no permission: not damage; opening it will say so
    if size == 0:
        return None  # sqlite treats an empty file as a new database
    if len(header) < 100 or not header.startswith(_MAGIC):
        return "is not an SQLite database"
    # The header's page count is trustworthy when the change counter matches
    # version-valid-for; a file shorter than that was truncated (a torn copy, a full disk).
    # Not with a WAL beside it: a checkpoint cut short may leave the file short, and sqlite
    # finishes it from the WAL (the quick check below reads through it).
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    change_counter, page_count = struct.unpack(">II", header[24:32])
    valid_for = struct.unpack(">I", header[92:96])[0]
    if page_count and change_counter == valid_for and size < page_count * page_size \
            and not _has_wal(path):
        return f"is truncated ({size} of {page_count * page_size} bytes)"
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=rw", uri=True, timeout=5)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return None  # locked, busy, no permission: not damage; opening it will say more
    except sqlite3.DatabaseError as exc:
        return f"is damaged ({exc})"
    if rows != [("ok",)]:
        first = rows[0][0] if rows else "no answer"
        return f"is damaged (quick_check: {str(first)[:120]})"
    return None


def _has_wal(path: Path) -> bool:
    try:
        return path.with_name(path.name + "-wal").stat().st_size > 0
    except OSError:
        return False


def move_database_aside(path: Path, problem: str, *, logs_dir: Path | None = None) -> Path:
    """Rename the database and its companions aside, announce it, return the new db path."""
    path = Path(path)
    target = move_aside(path)
    for suffix in COMPANION_SUFFIXES:
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            # Kept next to the moved database (same stamp) so sqlite could still pair them.
            companion.replace(target.with_name(target.name + suffix))
    announce(f"history database {path.name} {problem} and was moved to {target}; "
             "starting with an empty history", logs_dir=logs_dir)
    return target


def check_database(path: Path, *, logs_dir: Path | None = None) -> Path | None:
    """Move `path` aside if unusable (announced); returns where it went, None if it was fine."""
    problem = database_problem(path)
    if problem is None:
        return None
    return move_database_aside(path, problem, logs_dir=logs_dir)
