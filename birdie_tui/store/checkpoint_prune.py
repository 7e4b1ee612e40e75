"""Keeping `checkpoints.db` linear in the size of the conversations it holds.

LangGraph writes a checkpoint per graph step, each with the *whole* history: kept forever, a
session of 40 turns with 32 KB tool results took 142 MB. Resume, `/retry` (an update on the
latest checkpoint), history reads and a pending interrupt need only a thread's latest
checkpoint and the writes pending on it, so everything older goes:

- after each checkpoint the engine writes (`PRUNE_THREAD`, run on its own connection);
- at start, for every thread of the file (`prune_database`: files written before this, or by
  Birdie, which keeps everything), and a file that is mostly free pages is vacuumed once.

sqlite reuses the freed pages for the next checkpoints, so the file stops growing at about two
copies of the longest history plus its WAL. Safe beside other processes: a thread's latest
checkpoint and its writes are never touched, and a run in progress needs nothing older.
Plain sqlite3, no LangGraph.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["CONNECTION_PRAGMAS", "PRUNE_THREAD", "prune_database"]

# (thread_id, checkpoint_ns, checkpoint_id) -> everything of that thread older than the id.
PRUNE_THREAD = (
    "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?",
    "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?",
)

# For every connection that writes checkpoints: wait for a busy database rather than fail a
# turn (another process may be writing its own session), and give the WAL back to the disk
# after it is checkpointed (it otherwise stays as large as the largest burst of writes).
BUSY_TIMEOUT_MS = 30_000
CONNECTION_PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA journal_size_limit = 8388608",
)

_STALE = (
    "FROM {table} AS t WHERE t.checkpoint_id < (SELECT max(c.checkpoint_id) FROM checkpoints "
    "AS c WHERE c.thread_id = t.thread_id AND c.checkpoint_ns = t.checkpoint_ns)"
)
# Writes whose checkpoint is gone (or never was) and is older than its thread's latest.
_ORPHAN_WRITES = (
    "DELETE FROM writes WHERE checkpoint_id < (SELECT max(c.checkpoint_id) FROM checkpoints "
    "AS c WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns)"
)
# Vacuum a file once it is mostly free pages and big enough for that to matter.
VACUUM_FREE_SHARE = 0.5
VACUUM_MIN_FREE_BYTES = 16 * 1024 * 1024


def prune_database(path: Path, *, timeout: float = 5.0) -> int:
    """Drop every thread's checkpoints (and writes) older than its latest; vacuum the file if
    that left it mostly empty. Returns how many checkpoints went. Best effort: a busy, locked
    or missing database is left as it is (0), the next start tries again."""
    path = Path(path)
    if not path.is_file():
        return 0
    try:
        conn = sqlite3.connect(path, timeout=timeout)
    except sqlite3.Error:
        return 0
    try:
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"checkpoints", "writes"} <= tables:
            return 0
        if conn.execute(f"SELECT 1 {_STALE.format(table='checkpoints')} LIMIT 1").fetchone():
            with conn:
                conn.execute(_ORPHAN_WRITES)
                dropped = conn.execute(
                    f"DELETE {_STALE.format(table='checkpoints')}").rowcount
        else:
            dropped = 0
        _vacuum_if_mostly_free(conn)
        return max(dropped, 0)
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def _vacuum_if_mostly_free(conn: sqlite3.Connection) -> None:
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    if free * page_size >= VACUUM_MIN_FREE_BYTES and free >= pages * VACUUM_FREE_SHARE:
        try:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError:
            pass  # another process is reading or writing: the pages are reused meanwhile
