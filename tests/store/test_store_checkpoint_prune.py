"""`checkpoints.db` stays linear: each thread keeps its latest checkpoint and the writes
pending on it; older files are pruned (and vacuumed) at start; a real session of bulky turns
keeps one checkpoint and stays a small multiple of its history, which reads back whole."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from birdie_tui.store.checkpoint_prune import prune_database
from tests.agent.conftest import SKILLS

BULKY = """\
---
name: Bulky
description: A tool with a big output.
---

## Tools

### big
description: Print 32 KB.
entrypoint: bash:head -c 24576 /dev/urandom | base64 -w 100
schema:
  type: object
  properties: {}
"""


def _database(path: Path, rows: dict[str, int], blob: int = 100) -> None:
    """A checkpoints.db (LangGraph's own schema) with `rows[thread]` checkpoints per thread,
    each with two writes, ids "01", "02", ... in order."""
    with SqliteSaver.from_conn_string(str(path)) as saver:
        saver.setup()
    conn = sqlite3.connect(path)
    with conn:
        for thread, count in rows.items():
            for n in range(1, count + 1):
                cid = f"{n:02d}"
                conn.execute("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
                             "type, checkpoint, metadata) VALUES (?, '', ?, 'msgpack', ?, ?)",
                             (thread, cid, b"x" * blob, b"{}"))
                for idx in range(2):
                    conn.execute("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, "
                                 "task_id, idx, channel, type, value) VALUES "
                                 "(?, '', ?, 't', ?, 'messages', 'msgpack', ?)",
                                 (thread, cid, idx, b"w"))
    conn.close()


def _rows(path: Path, table: str) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(set(conn.execute(f"SELECT thread_id, checkpoint_id FROM {table}")))
    finally:
        conn.close()


def test_each_thread_keeps_its_latest_checkpoint_and_its_pending_writes(tmp_path):
    """Older checkpoints and their writes go, per thread; the latest and its writes stay."""
    db = tmp_path / "checkpoints.db"
    _database(db, {"2026-01-01_1": 4, "2026-01-01_2": 1, "2026-01-01_3": 2})
    assert prune_database(db) == 4
    kept = [("2026-01-01_1", "04"), ("2026-01-01_2", "01"), ("2026-01-01_3", "02")]
    assert _rows(db, "checkpoints") == kept
    assert _rows(db, "writes") == kept
    assert prune_database(db) == 0  # nothing left to do


def test_a_bloated_file_is_vacuumed_once_pruned(tmp_path):
    """A file that pruning leaves mostly empty gives its space back."""
    db = tmp_path / "checkpoints.db"
    _database(db, {"2026-01-01_1": 40}, blob=1_000_000)
    big = db.stat().st_size
    assert big > 40_000_000
    prune_database(db)
    assert db.stat().st_size < big / 10


def test_a_busy_or_foreign_database_is_left_alone(tmp_path):
    """Another process writing, a file without LangGraph's tables, no file: nothing raised,
    nothing dropped (the next start tries again)."""
    db = tmp_path / "checkpoints.db"
    _database(db, {"t": 3})
    other = sqlite3.connect(db)
    other.execute("BEGIN EXCLUSIVE")
    try:
        assert prune_database(db, timeout=0.05) == 0
    finally:
        other.rollback()
        other.close()
    assert len(_rows(db, "checkpoints")) == 3
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).close()
    assert prune_database(plain) == 0
    assert prune_database(tmp_path / "missing.db") == 0


async def test_a_session_of_bulky_turns_keeps_one_checkpoint_and_reads_back(tmp_path,
                                                                            isolated_home):
    """12 turns with 32 KB tool results: one checkpoint row, no stale writes, the file a small
    multiple of the history; the whole history reads back, /retry still works, and a plain
    LangGraph reader (as Birdie reads) sees the same messages."""
    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig

    skills = tmp_path / "skills" / "bulky"
    skills.mkdir(parents=True)
    (skills / "SKILL.MD").write_text(textwrap.dedent(BULKY))
    engine = Engine(EngineOptions(skills_dirs=[skills.parent],
                                  provider=ProviderConfig(vendor="offline")))
    await engine.start()
    db = engine.paths.checkpoints_db(engine.user)
    try:
        await engine.open_session()
        for _ in range(12):
            events = [e async for e in engine.run_turn("call big")]
            assert events[-1].type == "done"
            assert len(_rows(db, "checkpoints")) == 1
            assert len(_rows(db, "writes")) <= 1
        sid = engine.session.id
        history = await engine.messages()
        assert [m.type for m in history].count("human") == 12 and len(history) == 48
        assert await engine.take_last_turn() == "call big"
        assert len(await engine.messages()) == 44
    finally:
        await engine.aclose()
    conn = sqlite3.connect(db)
    blob = conn.execute("SELECT length(checkpoint) FROM checkpoints").fetchone()[0]
    conn.close()
    assert blob > 11 * 32_000
    assert db.stat().st_size < 3 * blob + 256 * 1024
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from birdie_tui.agent.graph import build_graph

    async with aiosqlite.connect(str(db)) as conn:
        state = await build_graph(AsyncSqliteSaver(conn)).aget_state(
            {"configurable": {"thread_id": sid}})
    assert [m.id for m in state.values["messages"]] == [m.id for m in history[:44]]


GUARDED = textwrap.dedent(SKILLS["guarded/SKILL.MD"]).lstrip()  # a tool that asks first


async def test_a_pending_approval_survives_pruning_and_a_restart(tmp_path, isolated_home):
    """A step waiting for approval (an interrupt: the latest checkpoint plus its pending
    write) is kept by the pruning after each step and by the pruning at start."""
    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig

    skills = tmp_path / "skills" / "guarded"
    skills.mkdir(parents=True)
    (skills / "SKILL.MD").write_text(GUARDED)
    options = EngineOptions(skills_dirs=[skills.parent], provider=ProviderConfig(vendor="offline"))
    engine = Engine(options)
    await engine.start()
    try:
        await engine.open_session()
        assert [e async for e in engine.run_turn("hello")][-1].type == "done"
        events = [e async for e in engine.run_turn(
            f'call touch_file {{"path": "{tmp_path / "made"}"}}')]
        assert events[-1].type == "approval"
        sid = engine.session.id
    finally:
        await engine.aclose()
    db = engine.paths.checkpoints_db(engine.user)
    assert len(_rows(db, "checkpoints")) == 1 and len(_rows(db, "writes")) >= 1
    again = Engine(options)
    await again.start()  # prunes every thread of the file
    try:
        state = await again.host.graph.aget_state(again.history.config(sid))
        assert state.interrupts and state.next == ("tools",)
    finally:
        await again.aclose()
    assert len(_rows(db, "writes")) >= 1


async def test_an_old_file_is_pruned_when_the_engine_starts(tmp_path, isolated_home):
    """A history written the old way (every step's checkpoint kept) is cut to its latest
    checkpoint by the next start, and reads back the same."""
    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig

    options = EngineOptions(provider=ProviderConfig(vendor="offline"))
    old = Engine(options)
    old.prune_checkpoints = False
    await old.start()
    try:
        await old.open_session()
        for text in ("one", "two", "three"):
            assert [e async for e in old.run_turn(text)][-1].type == "done"
        sid, before = old.session.id, [m.id for m in await old.messages()]
    finally:
        await old.aclose()
    db = old.paths.checkpoints_db(old.user)
    assert len(_rows(db, "checkpoints")) > 3
    new = Engine(options)
    await new.start()
    try:
        assert len(_rows(db, "checkpoints")) == 1
        await new.open_session(sid)
        assert [m.id for m in await new.messages()] == before
    finally:
        await new.aclose()
