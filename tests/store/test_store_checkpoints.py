"""SessionStore.delete against a real LangGraph AsyncSqliteSaver database."""

import sqlite3
import threading
from datetime import date
from pathlib import Path
from typing import TypedDict

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph

from birdie_tui.store import BirdiePaths, SessionStore

DAY = date(2026, 4, 29)


class Counter(TypedDict):
    n: int


def _graph():
    g = StateGraph(Counter)
    g.add_node("inc", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "inc")
    g.add_edge("inc", END)
    return g


async def _run(db: Path, *thread_ids: str) -> None:
    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        app = _graph().compile(checkpointer=saver)
        for tid in thread_ids:
            await app.ainvoke({"n": 0}, {"configurable": {"thread_id": tid}})


def _rows(db: Path, table: str, thread_id: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table} WHERE thread_id = ?", (thread_id,)).fetchone()[0]


async def test_delete_removes_only_that_sessions_checkpoints(paths: BirdiePaths) -> None:
    """Deleting a session drops its checkpoint rows only; another session still resumes."""
    store = SessionStore(paths, "alice")
    gone, kept = store.create(DAY), store.create(DAY)
    db = paths.checkpoints_db("alice")
    await _run(db, gone.id, kept.id)
    for tid in (gone.id, kept.id):
        assert _rows(db, "checkpoints", tid) > 0 and _rows(db, "writes", tid) > 0

    assert store.delete(gone.id) is True

    assert _rows(db, "checkpoints", gone.id) == 0 and _rows(db, "writes", gone.id) == 0
    assert _rows(db, "checkpoints", kept.id) > 0 and _rows(db, "writes", kept.id) > 0
    assert not store.exists(gone.id) and store.exists(kept.id)
    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        assert await saver.aget_tuple({"configurable": {"thread_id": gone.id}}) is None
        kept_state = await saver.aget_tuple({"configurable": {"thread_id": kept.id}})
        assert kept_state.checkpoint["channel_values"]["n"] == 1
        # The kept session continues from its history.
        app = _graph().compile(checkpointer=saver)
        state = await app.ainvoke(None, {"configurable": {"thread_id": kept.id}})
        assert state["n"] == 1


async def test_orphan_checkpoint_thread_is_not_reused(paths: BirdiePaths) -> None:
    """An id with checkpoints but no JSON file is skipped when allocating a new session."""
    # History whose JSON went missing must not be attached to a brand-new session.
    paths.ensure_user_dir("alice")
    await _run(paths.checkpoints_db("alice"), "2026-04-29_1")
    assert SessionStore(paths, "alice").create(DAY).id == "2026-04-29_2"


def test_delete_without_db_or_tables(paths: BirdiePaths) -> None:
    """Deleting a session works when checkpoints.db has no tables."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    sqlite3.connect(paths.checkpoints_db("alice")).close()  # empty db, no tables
    assert store.delete(meta.id) is True
    assert not store.exists(meta.id)


def test_delete_waits_for_a_locked_db(paths: BirdiePaths) -> None:
    """Deleting a session waits for a write lock on checkpoints.db instead of failing."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    db = paths.checkpoints_db("alice")
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE checkpoints (thread_id TEXT)")
        conn.execute("CREATE TABLE writes (thread_id TEXT)")
        conn.executemany("INSERT INTO checkpoints VALUES (?)", [(meta.id,), ("other",)])
        conn.executemany("INSERT INTO writes VALUES (?)", [(meta.id,), ("other",)])
    holder = sqlite3.connect(db, check_same_thread=False, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO writes VALUES ('held')")
    release = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        assert store.delete(meta.id) is True
    finally:
        release.join()
        holder.close()
    assert _rows(db, "checkpoints", meta.id) == 0 and _rows(db, "writes", meta.id) == 0
    assert _rows(db, "checkpoints", "other") == 1 and _rows(db, "writes", "held") == 1
