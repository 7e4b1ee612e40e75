"""Opening the LangGraph sqlite checkpointer so that a damaged database never kills a run.

The file is checked first (cheap header checks + `PRAGMA quick_check`, off the event loop); a
damaged one, or one that fails LangGraph's setup with a database error, is moved aside with its
-wal/-shm/-journal (announced on the recovery bus) and a fresh database is used. Whatever
fails, the aiosqlite connection is closed: its worker thread is not a daemon, and a connection
left open keeps the process alive forever.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from birdie_tui.store.checkpoint_db import check_database, move_database_aside
from birdie_tui.store.wal_mode import ensure_wal

__all__ = ["open_checkpointer"]


async def open_checkpointer(db: Path, *, logs_dir: Path | None = None) -> tuple[Any, Any]:
    """(aiosqlite connection, AsyncSqliteSaver) on `db`, set up. sqlite3.OperationalError
    (locked, read-only, no permission: not damage) propagates, with nothing left open."""
    await asyncio.to_thread(check_database, db, logs_dir=logs_dir)
    try:
        return await _open(db)
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as exc:  # damage the quick check did not see
        await asyncio.to_thread(move_database_aside, db, f"is damaged ({exc})",
                                logs_dir=logs_dir)
        return await _open(db)


async def _open(db: Path) -> tuple[Any, Any]:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    # LangGraph's setup switches to WAL without retrying: done first, its switch is a no-op.
    await asyncio.to_thread(ensure_wal, db)
    conn = await aiosqlite.connect(str(db))
    try:
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
    except BaseException:
        await conn.close()
        raise
    return conn, saver
