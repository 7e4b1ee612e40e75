"""Whole turns through the real graph, the offline model and a real sqlite checkpointer."""

from __future__ import annotations

import asyncio
import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig

from .conftest import LoopingModel, cancel_during_tool, collect, history_tokens


def types(events):
    return [e.type for e in events]


async def test_plain_turn_streams_tokens_and_reports(engine):
    """A plain turn streams tokens, reports usage once and injects only the always_inject skill."""
    events = await collect(engine, "hello there")
    kinds = types(events)
    assert kinds[0] == "injected"
    assert kinds.count("token") > 3
    assert kinds[-1] == "done"
    assert kinds.count("usage") == 1
    done = events[-1]
    assert done.text == "".join(e.text for e in events if e.type == "token")
    assert "hello there" in done.text
    # planner is always_inject; the trigger-less ssh body is not injected
    injected = events[0]
    assert [(s.name, s.reason) for s in injected.skills] == [("planner", "always_inject")]


async def test_tool_call_round_trip_is_checkpointed(engine, isolated_home):
    """A tool round trip is checkpointed; a new engine reads back the same history and tokens."""
    events = await collect(engine, 'call echo_text {"text": "it; works $(id)"}')
    kinds = types(events)
    assert kinds.count("usage") == 2  # one per model call
    call = next(e for e in events if e.type == "tool_call")
    result = next(e for e in events if e.type == "tool_result")
    assert (call.name, call.args) == ("echo_text", {"text": "it; works $(id)"})
    assert result.id == call.id and result.content == "it; works $(id)" and not result.error
    assert "it; works $(id)" in events[-1].text

    # The same history comes back from the sqlite file through a brand-new engine.
    sid = engine.session.id
    again = Engine(EngineOptions(skills_dirs=engine.skill_dirs,
                                 provider=ProviderConfig(vendor="offline")))
    await again.start()
    try:
        await again.open_session(sid)
        history = await again.messages()
        assert [type(m) for m in history] == [HumanMessage, AIMessage, ToolMessage, AIMessage]
        assert history_problems(history) == []
        assert again.session.turns == 1
        assert again.session.input_tokens > 0 and again.session.output_tokens > 0
        assert history_tokens(history) == (again.session.input_tokens,
                                           again.session.output_tokens)
    finally:
        await again.aclose()
    assert (isolated_home / "sessions" / "tester" / "checkpoints.db").exists()


async def test_failing_tool_becomes_error_result_and_turn_goes_on(engine):
    """A tool that fails becomes an error result and the turn still finishes."""
    events = await collect(engine, "call fail_hard")
    result = next(e for e in events if e.type == "tool_result")
    assert result.error and "broken" in result.content and "3" in result.content
    assert events[-1].type == "done"


async def test_trigger_injects_knowledge_body(engine):
    """A trigger phrase in the message injects the knowledge skill, with the trigger as reason."""
    events = await collect(engine, "How do I reach a Remote Server?")
    injected = events[0]
    reasons = {s.name: s.reason for s in injected.skills}
    assert reasons["ssh"] == "trigger:remote server"
    assert "ssh" in events[-1].text  # the offline model names the injected skills


async def test_toggle_changes_tools_of_next_call(engine):
    """Enabling or disabling a skill is saved and changes which tools the next call can use."""
    events = await collect(engine, "call hush")
    assert "tool_call" not in types(events)  # Quiet is off by default
    engine.set_skill_enabled("quiet", True)
    meta = json.loads(engine.sessions.paths.session_file("tester", engine.session.id).read_text())
    assert meta["enabled_skills"] == ["Quiet"]
    events = await collect(engine, "call hush")
    assert "tool_call" in types(events)
    engine.set_skill_enabled("Echoer", False)
    events = await collect(engine, 'call echo_text {"text": "x"}')
    assert "tool_call" not in types(events)
    assert "not available" in events[-1].text


async def test_approval_denied_and_approved(engine, tmp_path):
    """A guarded tool asks the approver; a denial blocks the call, an approval runs it."""
    target = tmp_path / "made"
    asked = []

    async def deny(request):
        asked.append((request.name, request.skill))
        return ApprovalAnswer("deny")

    events = await collect(engine, f'call touch_file {{"path": "{target}"}}', approver=deny)
    approval = next(e for e in events if e.type == "approval")
    assert approval.decision == "denied" and asked == [("touch_file", "Guarded")]
    assert next(e for e in events if e.type == "tool_result").error
    assert not target.exists()

    async def allow(request):
        return ApprovalAnswer("allow")

    events = await collect(engine, f'call touch_file {{"path": "{target}"}}', approver=allow)
    assert next(e for e in events if e.type == "approval").decision == "approved"
    assert target.exists()


async def test_agent_skill_loaded_then_injected(engine):
    """A loaded agent skill is injected later; its files are readable, nothing outside it."""
    events = await collect(engine, 'call load_skill {"name": "helper"}')
    assert not next(e for e in events if e.type == "tool_result").error
    events = await collect(engine, "what now?")
    injected = events[0]
    assert ("helper", "loaded") in [(s.name, s.reason) for s in injected.skills]
    events = await collect(engine, 'call read_skill_file {"name": "helper", "path": "../../x"}')
    assert next(e for e in events if e.type == "tool_result").error
    events = await collect(engine, 'call read_skill_file {"name": "helper", '
                                   '"path": "references/notes.md"}')
    assert "reference notes" in next(e for e in events if e.type == "tool_result").content


async def test_memory_reaches_the_prompt(engine):
    """Memory entries are reported in the prompt of the next turn."""
    engine.memory.add("prefers tea")
    events = await collect(engine, "hi")
    assert events[0].memory == ["prefers tea"]


async def test_cancel_mid_tool_leaves_valid_history(engine):
    """Cancelling during a tool leaves a valid, interrupted history and the next turn works."""
    await cancel_during_tool(engine, settle=0.2)
    history = await engine.messages()
    assert history_problems(history) == []
    assert isinstance(history[-1], AIMessage) and "interrupted" in history[-1].content
    events = await collect(engine, "still there?")
    assert events[-1].type == "done"
    assert history_problems(await engine.messages()) == []


async def test_cancel_mid_stream_keeps_partial_text(engine, monkeypatch):
    """Cancelling mid-stream keeps the partial answer, marked as interrupted."""
    engine.model.tokens_per_second = 200

    async def consume():
        async for event in engine.run_turn("tell me something long"):
            if event.type == "token":
                got.append(event.text)
                if len(got) == 5:
                    halfway.set()

    got: list[str] = []
    halfway = asyncio.Event()
    task = asyncio.create_task(consume())
    await asyncio.wait_for(halfway.wait(), 10)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    last = (await engine.messages())[-1]
    assert isinstance(last, AIMessage)
    assert last.content.startswith("".join(got).rstrip()[:10])
    assert last.content.endswith("*[interrupted]*")


async def test_loop_guard_stops_tool_calls(skills_dir):
    """The loop guard stops a model that keeps calling tools after max_tool_calls."""
    eng = Engine(EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"),
                               max_tool_calls=3))
    await eng.start()
    try:
        await eng.open_session()
        eng.model = LoopingModel()
        events = await collect(eng, "loop forever")
        assert types(events).count("tool_call") == 3
        assert events[-1].type == "done" and events[-1].text == "answered after 3 calls"
        assert history_problems(await eng.messages()) == []
    finally:
        await eng.aclose()


async def test_delete_session_removes_checkpoints(engine):
    """Deleting the open session replaces it with a fresh unsaved one under a new id."""
    await collect(engine, "first")
    sid = engine.session.id
    replacement = await engine.delete_session(sid)
    # The open session was deleted: a fresh, unsaved one replaces it, under a new id.
    assert replacement is not None and engine.session is replacement
    assert replacement.turns == 0 and await engine.messages() == []
    assert not engine.session_saved and replacement.id != sid
    assert engine.list_sessions() == []
