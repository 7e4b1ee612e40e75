"""The engine on a shared PostgreSQL database: sessions, history and approvals live
there, so an engine on another machine (another BIRDIE_HOME, another user) sees, continues and
answers them; the turn lock names who holds it; a bad or unreachable URL is one line. Every
test runs against a real server (tests/pg_server.py)."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest

from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.agent.engine import Engine, EngineError, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.store import BirdiePaths

pytestmark = pytest.mark.integration


def engine_on(url: str, home: Path, user: str, **environ: str) -> Engine:
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIRDIE_")}
    return Engine(EngineOptions(provider=ProviderConfig(vendor="offline"),
                                paths=BirdiePaths(home), database_url=url, user=user,
                                environ={**env, **environ}))


async def turn(engine: Engine, text: str, approver=None) -> list:
    return [event async for event in engine.run_turn(text, approver=approver)]


def write_call(target: Path) -> str:
    return f'call write_file {{"path": "{target}", "content": "shared"}}'


async def test_a_session_written_on_one_machine_is_listed_and_continued_on_another(
        pg_url, tmp_path):
    """Nothing lands under the first BIRDIE_HOME; another user on another home lists the
    session (owner and last writer), reads its history, and continues it."""
    alice = engine_on(pg_url, tmp_path / "laptop", "alice")
    await alice.start()
    try:
        await alice.open_session(None)
        assert (await turn(alice, "hello from the laptop"))[-1].type == "done"
        sid, spent = alice.session.id, alice.session.input_tokens
        assert spent > 0
    finally:
        await alice.aclose()
    # Nothing of the session is under the laptop's BIRDIE_HOME: it is all in the database.
    assert not list((tmp_path / "laptop").rglob("*.json"))
    assert not list((tmp_path / "laptop").rglob("checkpoints.db"))

    bob = engine_on(pg_url, tmp_path / "desktop", "bob")
    await bob.start()
    try:
        [row] = bob.sessions.summaries()
        assert (row.id, row.user_id, row.last_user, row.turns) == (sid, "alice", "alice", 1)
        await bob.open_session(sid)
        assert [m.type for m in await bob.messages()] == ["human", "ai"]
        assert (await turn(bob, "and from the desktop"))[-1].type == "done"
        assert bob.session.turns == 2 and bob.session.input_tokens > spent
        history = await bob.messages()
        assert history_problems(history) == [] and len(history) == 4
        [row] = bob.sessions.summaries()
        assert (row.user_id, row.last_user, row.turns) == ("alice", "bob", 2)
    finally:
        await bob.aclose()


async def test_a_pending_approval_is_answered_from_another_machine(pg_url, tmp_path):
    """A step stopped for approval on one machine is found, with the same request, by an
    engine on another, and answering it there runs the tool once."""
    target = tmp_path / "outside" / "made.txt"
    target.parent.mkdir()
    first = engine_on(pg_url, tmp_path / "a", "alice")
    await first.start()
    try:
        await first.open_session(None)
        events = await turn(first, write_call(target))
        pending = [e for e in events if e.type == "approval"]
        assert [e.decision for e in pending] == ["pending"]
        sid, call_id = first.session.id, pending[0].id
    finally:
        await first.aclose()
    assert not target.exists()

    second = engine_on(pg_url, tmp_path / "b", "bob")
    await second.start()
    try:
        await second.open_session(sid)
        [request] = await second.pending_approvals()
        assert (request.id, request.name) == (call_id, "write_file")
        events = [e async for e in second.run_turn(
            "", resume={call_id: ApprovalAnswer("allow")})]
        assert [e.decision for e in events if e.type == "approval"] == ["approved"]
        assert events[-1].type == "done"
        assert target.read_text() == "shared"
        assert await second.pending_approvals() == []
    finally:
        await second.aclose()


async def test_a_busy_session_says_which_user_and_host_hold_it(pg_url, tmp_path):
    """While another machine holds the turn lock, a turn waits, names the holder (user@host),
    gives up after BIRDIE_SESSION_WAIT with one line, and runs once the lock is free."""
    holder = engine_on(pg_url, tmp_path / "a", "alice")
    await holder.start()
    waiter = engine_on(pg_url, tmp_path / "b", "bob", BIRDIE_SESSION_WAIT="0.3")
    await waiter.start()
    try:
        await holder.open_session(None)
        await turn(holder, "first")
        sid = holder.session.id
        lock = holder.sessions.turn_lock(sid)
        assert lock.try_acquire()
        told: list[str] = []
        waiter.on_wait = told.append
        await waiter.open_session(sid)
        events = await turn(waiter, "second")
        assert [e.type for e in events] == ["error"]
        assert "alice@" in events[0].message and sid in events[0].message
        assert told and "alice@" in told[0]
        lock.release()
        assert (await turn(waiter, "second"))[-1].type == "done"
        assert waiter.session.turns == 2
    finally:
        await waiter.aclose()
        await holder.aclose()


async def test_the_history_in_postgres_stays_one_checkpoint_per_session(pg_url, tmp_path):
    """Older checkpoints are pruned after each write: storage stays linear in Postgres too."""
    engine = engine_on(pg_url, tmp_path / "a", "alice")
    await engine.start()
    try:
        await engine.open_session(None)
        for n in range(4):
            await turn(engine, f"turn {n}")
        sid = engine.session.id
    finally:
        await engine.aclose()
    with psycopg.connect(pg_url) as conn:
        count = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s AND "
                             "checkpoint_ns = ''", (sid,)).fetchone()[0]
    assert count == 1


async def test_deleting_a_session_removes_its_history_from_the_database(pg_url, tmp_path):
    """A deleted session leaves no checkpoint rows and is no longer listed."""
    engine = engine_on(pg_url, tmp_path / "a", "alice")
    await engine.start()
    try:
        await engine.open_session(None)
        await turn(engine, "to be deleted")
        sid = engine.session.id
        await engine.open_session(None)
        await engine.delete_session(sid)
        assert [s.id for s in engine.sessions.summaries()] == []
    finally:
        await engine.aclose()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s",
                            (sid,)).fetchone()[0]
    assert rows == 0


def test_an_unreachable_or_malformed_url_is_one_line_without_the_password(tmp_path):
    """A dead server or a non-Postgres URL is an EngineError of one line, password masked."""
    with pytest.raises(EngineError) as caught:
        engine_on("postgresql://bob:s3cret@127.0.0.1:1/team", tmp_path, "bob")
    message = str(caught.value)
    assert "s3cret" not in message and "\n" not in message and "127.0.0.1" in message
    with pytest.raises(EngineError) as caught:
        engine_on("mysql://bob:s3cret@db/team", tmp_path, "bob")
    assert "s3cret" not in str(caught.value) and "postgresql://" in str(caught.value)


async def test_rewind_and_fork_on_the_shared_database(pg_url, tmp_path):
    """On PostgreSQL a rewind cuts the history in place (valid, the turns following it, the
    tokens kept, the dropped part in the state's rewound channel), and a fork made on one
    machine is listed, read and continued on another with counts of its own."""
    alice = engine_on(pg_url, tmp_path / "laptop", "alice")
    await alice.start()
    try:
        await alice.open_session(None)
        for text in ('call echo_text {"text": "one"}', "two", "three"):
            assert (await turn(alice, text))[-1].type == "done"
        sid, spent = alice.session.id, alice.session.input_tokens
        fork = await alice.fork(3)
        assert await alice.rewind(2) == "two"
        history = await alice.messages()
        assert history_problems(history) == [] and [m.type for m in history][0] == "human"
        assert sum(m.type == "human" for m in history) == 1
        assert (alice.session.turns, alice.session.input_tokens) == (1, spent)
        assert [r["at"] for r in (await alice.rewound())["records"]] == [2]
    finally:
        await alice.aclose()

    bob = engine_on(pg_url, tmp_path / "desktop", "alice")
    await bob.start()
    try:
        rows = {row.id: row for row in bob.sessions.summaries()}
        assert rows[sid].turns == 1 and rows[fork.id].turns == 2
        await bob.open_session(fork.id)
        assert bob.session.title.startswith("fork of ") and bob.session.input_tokens == 0
        assert [m.content for m in await bob.messages() if m.type == "human"] == [
            'call echo_text {"text": "one"}', "two"]
        assert (await turn(bob, "more in the fork"))[-1].type == "done"
        assert bob.session.turns == 3 and 0 < bob.session.input_tokens < spent
        assert history_problems(await bob.messages()) == []
    finally:
        await bob.aclose()
