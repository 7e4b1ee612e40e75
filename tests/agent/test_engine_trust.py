"""A damaged history database never kills a start; token figures tell the truth after a
cancel and after /retry (agent/accounting.py)."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from birdie_tui.agent.engine import Engine, EngineError, EngineOptions
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.store import SessionStore
from birdie_tui.store.recovery import add_listener

from .conftest import collect, retry


def make_engine(skills_dir) -> Engine:
    return Engine(EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"),
                                tool_timeout=10))


def sqlite_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "_connection_worker_thread" in t.name]


# ------------------------------------------------------------------ damaged checkpoints.db
async def _history_of_one_turn(skills_dir) -> tuple[str, bytes]:
    eng = make_engine(skills_dir)
    await eng.start()
    try:
        await eng.open_session()
        await collect(eng, "first words")
        return eng.session.id, eng.paths.checkpoints_db(eng.user).read_bytes()
    finally:
        await eng.aclose()


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
async def test_damaged_database_is_moved_aside_and_a_fresh_one_used(skills_dir, damage):
    """A damaged history database is moved aside and announced at start; sessions go on empty."""
    sid, data = await _history_of_one_turn(skills_dir)
    eng = make_engine(skills_dir)
    db = eng.paths.checkpoints_db(eng.user)
    db.write_bytes(b"\x13garbage" * 500 if damage == "garbage" else data[: len(data) // 3])
    heard: list[str] = []
    remove = add_listener(heard.append)
    try:
        await eng.start()
    finally:
        remove()
    try:
        [aside] = list(db.parent.glob("checkpoints.db.corrupt-*"))
        assert aside.read_bytes()[:16] == (b"\x13garbage" * 2)[:16] or damage == "truncated"
        [message] = heard
        assert "history database checkpoints.db" in message and str(aside) in message
        # The session files survive; their history is gone (it was in the damaged file).
        await eng.open_session(sid)
        assert await eng.messages() == []
        events = await collect(eng, "starting over")
        assert events[-1].type == "done"
        assert [m.content for m in await eng.messages()][0] == "starting over"
    finally:
        await eng.aclose()


async def test_unopenable_database_is_an_engine_error_and_leaves_no_thread(skills_dir):
    """An unopenable history database raises EngineError and leaves no aiosqlite thread."""
    eng = make_engine(skills_dir)
    eng.paths.checkpoints_db(eng.user).mkdir(parents=True)  # not damage: nothing to move
    before = set(sqlite_threads())
    with pytest.raises(EngineError, match="cannot open the history database"):
        await eng.start()
    await eng.aclose()
    for thread in set(sqlite_threads()) - before:  # a live aiosqlite thread hangs the exit
        thread.join(10)
        assert not thread.is_alive()
    assert eng.paths.checkpoints_db(eng.user).is_dir()


# ------------------------------------------------------------------ token accounting
async def test_cancel_mid_turn_keeps_the_completed_calls(engine):
    """Cancelling during a tool keeps the finished model call's tokens in memory and on disk."""
    usage: list[tuple[int, int]] = []

    async def consume():
        async for event in engine.run_turn("call slow"):
            if event.type == "usage":
                usage.append((event.input_tokens, event.output_tokens))
            if event.type == "tool_call":
                started.set()

    started = asyncio.Event()
    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 10)
    marker = engine.paths.home / "slow.started"
    for _ in range(200):  # the tool is running: the model call is done and billed
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [(spent_in, spent_out)] = usage
    assert spent_in > 0
    meta = engine.session
    on_disk = json.loads(engine.paths.session_file(engine.user, meta.id).read_text())
    for figures in (meta.__dict__, on_disk):
        assert figures["turns"] == 1
        assert (figures["input_tokens"], figures["output_tokens"]) == (spent_in, spent_out)
        assert figures["token_log"] == [{"input": spent_in, "output": spent_out}]


async def _usage_of(events) -> tuple[int, int]:
    calls = [(e.input_tokens, e.output_tokens) for e in events if e.type == "usage"]
    return sum(c[0] for c in calls), sum(c[1] for c in calls)


async def test_retry_never_counts_a_turn_twice(engine):
    """Retries fold their tokens into one turn everywhere, and the history holds the turn once."""
    spent = [await _usage_of(await collect(engine, 'call echo_text {"text": "once"}'))]
    for _ in range(2):
        events = await retry(engine)
        assert events[-1].type == "done"
        spent.append(await _usage_of(events))
    total_in, total_out = sum(s[0] for s in spent), sum(s[1] for s in spent)
    assert total_in > spent[0][0] > 0

    sid = engine.session.id
    listed = {m.id: m for m in SessionStore(engine.paths, engine.user).list()}[sid]
    on_disk = json.loads(engine.paths.session_file(engine.user, sid).read_text())
    for figures in (engine.session.__dict__, on_disk, listed.__dict__):
        assert figures["turns"] == 1
        assert figures["token_log"] == [{"input": total_in, "output": total_out}]
        assert (figures["input_tokens"], figures["output_tokens"]) == (total_in, total_out)
    assert "retry_carry" not in on_disk
    # The history holds the turn once.
    users = [m.content for m in await engine.messages() if m.type == "human"]
    assert users == ['call echo_text {"text": "once"}']


async def test_retry_after_earlier_turns_folds_only_into_the_last(engine):
    """A retry folds its tokens into the last turn's log entry only."""
    first = await _usage_of(await collect(engine, "one"))
    second = await _usage_of(await collect(engine, "two"))
    again = await _usage_of(await retry(engine))
    meta = engine.session
    assert meta.turns == 2
    assert meta.token_log == [{"input": first[0], "output": first[1]},
                              {"input": second[0] + again[0], "output": second[1] + again[1]}]
    assert meta.input_tokens == first[0] + second[0] + again[0]


async def test_taken_back_turn_survives_a_restart_before_the_retry(engine, skills_dir):
    """Tokens of a taken-back turn survive a restart and are folded into the retried turn."""
    spent = await _usage_of(await collect(engine, "one"))
    await engine.take_last_turn()
    sid = engine.session.id
    assert engine.session.turns == 0 and engine.session.token_log == []
    later = make_engine(skills_dir)  # the app was closed before the retry ran
    await later.start()
    try:
        await later.open_session(sid)
        redo = await _usage_of(await collect(later, "one"))
        meta = later.session
        assert meta.turns == 1
        assert meta.token_log == [{"input": spent[0] + redo[0], "output": spent[1] + redo[1]}]
        assert (meta.input_tokens, meta.output_tokens) == (spent[0] + redo[0],
                                                           spent[1] + redo[1])
    finally:
        await later.aclose()


async def test_damage_only_setup_sees_is_still_recovered(skills_dir, monkeypatch):
    """If the quick check passes but LangGraph's setup hits a database error, the file is
    moved aside all the same, and the connection that failed is closed."""
    import birdie_tui.agent.checkpointer as checkpointer

    monkeypatch.setattr(checkpointer, "check_database", lambda *a, **k: None)
    eng = make_engine(skills_dir)
    db = eng.paths.checkpoints_db(eng.user)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database" * 300)
    before = set(sqlite_threads())
    heard: list[str] = []
    remove = add_listener(heard.append)
    try:
        await eng.start()
        await eng.open_session()
        assert (await collect(eng, "hi"))[-1].type == "done"
    finally:
        remove()
        await eng.aclose()
    assert len(heard) == 1 and "is damaged" in heard[0]
    assert len(list(db.parent.glob("checkpoints.db.corrupt-*"))) == 1
    for thread in set(sqlite_threads()) - before:
        thread.join(10)
        assert not thread.is_alive()


def test_usage_after_counts_only_the_calls_of_that_turn():
    """Usage after a user message sums only the completed model calls from that message on."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from birdie_tui.agent.accounting import usage_after

    def ai(i: int, o: int, **kw) -> AIMessage:
        return AIMessage(content="", usage_metadata={"input_tokens": i, "output_tokens": o,
                                                     "total_tokens": i + o}, **kw)

    history = [HumanMessage("old", id="u1"), ai(100, 10),
               HumanMessage("new", id="u2"),
               ai(7, 3, tool_calls=[{"name": "t", "args": {}, "id": "c1"}]),
               ToolMessage("r", tool_call_id="c1"), ai(5, 2),
               AIMessage("partial *[interrupted]*")]  # no usage: not billed as complete
    assert usage_after(history, "u2") == (12, 5)
    assert usage_after(history, "u1") == (112, 15)
    # The turn's message never reached the history: nothing to say (the events decide).
    assert usage_after(history, "missing") is None
