"""Counters follow the history when the disk fills up: a checkpoint write whose commit fails
("database or disk is full") leaves nothing of itself visible, so the session JSON never
counts a turn the history does not hold; and a count already ahead of the history (left by
such a write) is taken back on the next open and stays right after the next turn."""

from __future__ import annotations

import json
import sqlite3

from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.agent.accounting import settle
from birdie_tui.store import SessionMeta
from tests.cli.helpers import raw_history

from .conftest import collect


def humans(history) -> int:
    return sum(isinstance(m, HumanMessage) for m in history)


def session_file(home, session_id):
    return home / "sessions" / "tester" / f"{session_id}.json"


def json_turns(home, session_id) -> int:
    return json.loads(session_file(home, session_id).read_text())["turns"]


async def test_a_failed_commit_counts_no_turn(engine, isolated_home, monkeypatch):
    """Three turns, then a fourth whose every commit fails: the turn ends in one error, the
    history (as this engine and the disk see it) and the JSON both hold 3 turns; the next
    turn, with the disk back, makes them 4 and 4."""
    for n in range(3):
        await collect(engine, f"turn {n}")
    sid = engine.session.id

    async def disk_full():
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(engine.host.checkpoints.conn, "commit", disk_full)
    events = await collect(engine, "turn 3")
    assert [e.message for e in events if e.type == "error"] == [
        "OperationalError: database or disk is full"]
    monkeypatch.undo()
    assert humans(await engine.messages()) == 3
    assert humans(await raw_history(isolated_home, sid)) == 3
    assert json_turns(isolated_home, sid) == 3

    await collect(engine, "turn 4")
    assert humans(await raw_history(isolated_home, sid)) == 4
    assert json_turns(isolated_home, sid) == 4 == engine.session.turns


async def test_a_count_ahead_of_the_history_is_taken_back(engine, isolated_home):
    """A session JSON that counts a 4th turn whose messages never reached the history (its
    mark names a message that is not there) says 3 once the session is opened again, and 4
    after the next turn; the tokens it counted stay in the totals."""
    for n in range(3):
        await collect(engine, f"turn {n}")
    sid = engine.session.id
    path = session_file(isolated_home, sid)
    data = json.loads(path.read_text())
    data["turns"] = 4
    data["token_log"].append({"input": 50, "output": 5})
    data["input_tokens"] += 50
    data["output_tokens"] += 5
    data["history_counted"] = {"through": "lost-message", "turns": 4}
    path.write_text(json.dumps(data))
    totals = (data["input_tokens"], data["output_tokens"])

    await engine.open_session(sid)
    assert json_turns(isolated_home, sid) == 3 == engine.session.turns
    await collect(engine, "turn 3")
    after = json.loads(path.read_text())
    assert after["turns"] == 4 == humans(await raw_history(isolated_home, sid))
    assert after["input_tokens"] > totals[0] and after["output_tokens"] > totals[1]
    assert sum(e["input"] for e in after["token_log"]) == after["input_tokens"]


def test_settle_takes_back_turns_the_history_lost():
    """settle: our mark (same turn count) naming a message the history no longer holds sets
    `turns` to the history's user messages; totals stay and the log's entries still add up."""
    meta = SessionMeta(id="s", user_id="u", turns=3, input_tokens=30, output_tokens=3,
                       token_log=[{"input": 10, "output": 1}] * 3,
                       counted={"through": "gone", "turns": 3})
    history = [HumanMessage("a", id="h1"), AIMessage("b", id="a1"),
               HumanMessage("c", id="h2"), AIMessage("d", id="a2")]
    assert settle(meta, history, price=None) == (0, 0)
    assert meta.turns == 2 and (meta.input_tokens, meta.output_tokens) == (30, 3)
    assert meta.counted == {"through": "a2", "turns": 2}
    assert meta.retry_carry == {"input": 10, "output": 1}
