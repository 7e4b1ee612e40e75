"""The embedded history database: LangGraph's sqlite checkpointer on ``checkpoints.db``, plus the
few indexed queries the engine runs beside it. `agent.pg_checkpoints` is its PostgreSQL twin;
the engine only uses what both have: `saver`, `head`, `prune`, `discard`, `no_interrupt_written`,
`aclose`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from birdie_tui.agent.checkpointer import open_checkpointer
from birdie_tui.agent.options import EngineError
from birdie_tui.store.checkpoint_prune import CONNECTION_PRAGMAS, PRUNE_THREAD, prune_database

__all__ = ["SqliteCheckpoints"]


class SqliteCheckpoints:
    def __init__(self, conn: Any, saver: Any) -> None:
        self.conn, self.saver = conn, saver

    @classmethod
    async def open(cls, db: Path, *, logs_dir: Path | None = None) -> SqliteCheckpoints:
        """The database set up; damage is moved aside (see `open_checkpointer`), and a database
        that cannot be opened at all (locked, read-only) raises EngineError."""
        try:
            conn, saver = await open_checkpointer(db, logs_dir=logs_dir)
        except sqlite3.OperationalError as exc:  # locked, read-only, no permission: not damage
            raise EngineError(f"cannot open the history database {db}: {exc}") from exc
        try:
            for pragma in CONNECTION_PRAGMAS:  # wait for a busy database; keep the WAL small
                await conn.execute(pragma)
            # Old files (and Birdie's) keep every step's checkpoint: only the latest is needed.
            await asyncio.to_thread(prune_database, db)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, saver)

    async def head(self, thread_id: str) -> str | None:
        """The id of the thread's latest checkpoint (one indexed query); None if unknown."""
        try:
            async with self.conn.execute(
                    "SELECT max(checkpoint_id) FROM checkpoints "
                    "WHERE thread_id = ? AND checkpoint_ns = ''", (thread_id,)) as cursor:
                row = await cursor.fetchone()
        except Exception:  # noqa: BLE001 - no cache is always correct
            return None
        return row[0] if row else None

    async def prune(self, thread_id: str, head: str) -> None:
        """Drop the thread's checkpoints and writes older than `head` (best effort: what a
        busy database keeps now goes with the next checkpoint)."""
        try:
            async with self.saver.lock:
                for statement in PRUNE_THREAD:
                    await self.conn.execute(statement, (thread_id, "", head))
                await self.conn.commit()
        except Exception:  # noqa: BLE001 - pruning never fails a turn
            with contextlib.suppress(Exception):
                await self.conn.rollback()

    async def discard(self) -> None:
        """Roll back what a failed write left in the connection's open transaction: a commit
        that fails (a full disk) leaves its rows visible to this connection until then, so
        the history read next would hold a step that never reached the disk (and be counted)."""
        with contextlib.suppress(Exception):
            async with self.saver.lock:
                await self.conn.rollback()

    async def no_interrupt_written(self, thread_id: str) -> bool:
        """True when the thread's latest checkpoint surely has no interrupt pending; False
        when it may, or cannot be told."""
        try:
            async with self.conn.execute(
                    "SELECT 1 FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND "
                    "channel = '__interrupt__' AND checkpoint_id = (SELECT max(checkpoint_id) "
                    "FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '') LIMIT 1",
                    (thread_id, thread_id)) as cursor:
                return await cursor.fetchone() is None
        except Exception:  # noqa: BLE001 - not sure: read the state
            return False

    async def aclose(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            await conn.close()
