"""The session JSON's counts follow the checkpointed history step by step, so a
kill at any moment leaves `turns` and the token totals agreeing with the history; what a kill
in the millisecond between a checkpoint and its JSON write leaves behind is counted on the
next open; a turn another process ran is seen when this one takes the session's lock."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from birdie_tui.agent.accounting import settle
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.store import SessionMeta

from .conftest import cancel_during_tool, collect, history_tokens


def _ai(mid: str, spent_in: int, spent_out: int, **kw) -> AIMessage:
    return AIMessage(content="", id=mid, usage_metadata={
        "input_tokens": spent_in, "output_tokens": spent_out,
        "total_tokens": spent_in + spent_out}, **kw)


def _agree(meta_or_dict, history) -> None:
    data = meta_or_dict if isinstance(meta_or_dict, dict) else meta_or_dict.to_dict()
    assert data["turns"] == sum(m.type == "human" for m in history)
    assert (data["input_tokens"], data["output_tokens"]) == history_tokens(history)


def test_settle_counts_what_follows_the_last_message_counted():
    """Each user message opens a turn, each AI message adds its usage; counting again
    changes nothing; the turn's log entry and record get its calls."""
    meta = SessionMeta(id="2026-01-01_1", user_id="u", counted={"through": None, "turns": 0})
    call = {"name": "t", "id": "c1", "args": {}}
    history = [HumanMessage("go", id="h1"), _ai("a1", 100, 5, tool_calls=[call]),
               ToolMessage("done", tool_call_id="c1", id="t1")]
    assert settle(meta, history, price=None, model="m") == (100, 5)
    history.append(_ai("a2", 120, 7))
    assert settle(meta, history, price=None, model="m") == (120, 7)
    assert settle(meta, history, price=None, model="m") == (0, 0)
    assert (meta.turns, meta.title, meta.token_log) == (1, "go", [{"input": 220, "output": 12}])
    assert meta.turn_costs[0]["input"] == 220 and meta.counted == {"through": "a2", "turns": 1}
    _agree(meta, history)


def test_settle_takes_counts_kept_elsewhere_as_they_are():
    """No mark (an older session), or `turns` changed by someone else (Birdie ran a turn):
    nothing is recounted, counting goes on from the end of the history."""
    history = [HumanMessage("a", id="h1"), _ai("a1", 10, 1)]
    legacy = SessionMeta(id="s", user_id="u", turns=1, input_tokens=10, output_tokens=1)
    assert settle(legacy, history, price=None) == (0, 0)
    assert legacy.counted == {"through": "a1", "turns": 1} and legacy.turns == 1
    birdie = SessionMeta(id="s", user_id="u", turns=2, counted={"through": "h1", "turns": 1})
    assert settle(birdie, history, price=None) == (0, 0) and birdie.turns == 2


async def test_a_turn_counts_as_its_steps_reach_the_disk(engine, isolated_home):
    """Mid-turn (a tool running), the file already counts the turn and its first call."""
    await collect(engine, "hello")
    await cancel_during_tool(engine, settle=0.2)
    history = await engine.messages()
    path = isolated_home / "sessions" / "tester" / f"{engine.session.id}.json"
    _agree(json.loads(path.read_text()), history)
    assert engine.session.turns == 2


async def test_a_kill_between_a_checkpoint_and_its_count_is_caught_up_on_open(skills_dir):
    """Checkpoints written but never counted (the process died in between): the next open
    counts them, and only them."""
    options = EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"))
    first = Engine(options)
    await first.start()
    try:
        await first.open_session()
        await collect(first, "counted")
        sid = first.session.id
        path = first.paths.session_file(first.user, sid)
        counted = path.read_bytes()
        await collect(first, 'call echo_text {"text": "not counted yet"}')
    finally:
        await first.aclose()
    path.write_bytes(counted)  # the JSON writes of the second turn never happened
    again = Engine(options)
    await again.start()
    try:
        assert again.sessions.load(sid).turns == 1
        await again.open_session(sid)
        history = await again.messages()
        assert again.session.turns == 2
        _agree(again.sessions.load(sid), history)
    finally:
        await again.aclose()


async def test_a_turn_run_by_another_process_is_seen_when_the_lock_is_taken(skills_dir):
    """Two engines on one session (as a TUI and a `--print`): the second one's turn and the
    first one's toggle made meanwhile both stay; the first one's next turn follows on the
    other's history and counts."""
    options = EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"))
    tui, other = Engine(options), Engine(options)
    await tui.start()
    await other.start()
    try:
        await tui.open_session()
        await collect(tui, "from the tui")
        sid = tui.session.id
        await other.open_session(sid)
        await collect(other, "from elsewhere")
        tui.set_skill_enabled("Quiet", True)  # with a stale copy: the other turn stays
        assert tui.sessions.load(sid).turns == 2
        await collect(tui, "the tui again")
        history = await tui.messages()
        assert [m.content for m in history if m.type == "human"] == [
            "from the tui", "from elsewhere", "the tui again"]
        assert tui.session.turns == 3 and "Quiet" in tui.session.enabled_skills
        _agree(tui.sessions.load(sid), history)
    finally:
        await tui.aclose()
        await other.aclose()
