"""Sub-agents as nested turns of the engine (offline model): an enabled agent file is a tool;
its call runs the agent on its own thread under the session, with its events, approvals and
tokens reaching the parent's turn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.graph import repeated
from birdie_tui.agent.history import repair_history
from birdie_tui.agent.subagents import HEADLESS_DENIAL
from birdie_tui.events import AgentFinished, AgentStarted, ChildEvent
from birdie_tui.providers.config import ProviderConfig
from tests.agent.conftest import collect, write_agents

@pytest.fixture
async def engine(skills_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    eng = Engine(EngineOptions(skills_dirs=[skills_dir], agents_dirs=[write_agents(
        tmp_path / "agents")], provider=ProviderConfig(vendor="offline"), tool_timeout=10))
    await eng.start()
    await eng.open_session(enable=list(_names()))
    yield eng
    await eng.aclose()


def _names() -> list[str]:
    return ["Repeater", "Toucher", "Echoing", "Sleeper", "Shaped", "Looper"]


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def child_events(events, kind: str):
    return [e.event for e in of(events, ChildEvent) if e.event.type == kind]


async def test_a_call_runs_the_agent_on_its_own_thread_and_returns_its_answer(engine):
    """The call's events come in order, the child answers on its own thread under the session with
    its own prompt, and its answer is the call's result."""
    events = await collect(engine, 'call Repeater {"text": "hello bird"}')
    kinds = [e.type for e in events]
    started, = of(events, AgentStarted)
    finished, = of(events, AgentFinished)
    assert started.name == "Repeater" and started.inputs == {"text": "hello bird"}
    assert kinds.index("tool_call") < kinds.index("agent_start") < kinds.index("child") \
        < kinds.index("agent_end") < kinds.index("tool_result")
    assert finished.status == "done" and finished.calls == 1 and finished.child == started.child
    result = next(e for e in events if e.type == "tool_result")
    assert "Please repeat: hello bird" in result.content and not result.error
    # Its own thread under the session, with its own prompt (no skills, no memory).
    assert started.child.startswith(f"{engine.session.id}/agent/Repeater-")
    child = await engine.messages(started.child)
    assert [m.type for m in child] == ["human", "ai"]
    assert child[0].content == "Please repeat: hello bird"
    injected, = child_events(events, "injected")
    assert injected.skills == [] and injected.memory == []
    # Every child event says whose it is, in stream-json too.
    line = of(events, ChildEvent)[0].to_dict()
    assert line["child"] == started.child and line["agent"] == "Repeater"


async def test_the_childs_tokens_count_in_the_turn_the_session_and_per_agent(engine):
    """The child's usage counts once in the turn, the session file, the per-agent spend and the
    runs; the context gauge stays the parent's."""
    events = await collect(engine, 'call Repeater {"text": "count me"}')
    usage = [e for e in events if e.type == "usage"] + child_events(events, "usage")
    spent_in = sum(u.input_tokens for u in usage)
    finished, = of(events, AgentFinished)
    assert finished.input_tokens == sum(u.input_tokens for u in child_events(events, "usage"))
    meta = engine.host.sessions.load(engine.session.id)
    assert meta.input_tokens == spent_in and meta.turns == 1
    assert meta.extra["agent_spend"]["Repeater"]["calls"] == 1
    run, = meta.extra["agent_runs"]
    assert run["child"] == finished.child and run["status"] == "done" and run["turn"] == 1
    ledger = engine.token_ledger()
    assert [(a.name, a.calls) for a in ledger.agents] == [("Repeater", 1)]
    own = [e for e in events if e.type == "usage"]
    assert ledger.context_tokens == own[-1].input_tokens  # the parent's last call, not the child's
    # Reopened, nothing is counted twice.
    await engine.open_session(engine.session.id)
    await collect(engine, "and again")
    again = engine.host.sessions.load(engine.session.id)
    assert again.extra["agent_spend"]["Repeater"]["calls"] == 1
    assert len(again.extra["agent_runs"]) == 1


async def test_a_child_has_only_its_allowed_skills(engine):
    """A child is offered only its allowed skills' tools: another skill's tool is not even bound."""
    events = await collect(engine, "call Echoing")
    result = next(e for e in events if e.type == "tool_result")
    assert "`echo_text` is not available" in result.content and "`noop`" in result.content
    assert not child_events(events, "tool_call")


def _asker(answer: ApprovalAnswer, asked: list):
    async def approver(request):
        asked.append(request)
        return answer

    return approver


async def test_a_childs_call_is_asked_through_the_turns_approver_naming_the_agent(engine, tmp_path):
    """A gated call inside the child is asked through the parent turn's approver, naming the agent;
    the answer decides."""
    asked: list = []
    target = tmp_path / "made-by-child"
    events = await collect(engine, f'call Toucher {{"path": "{target}"}}',
                           approver=_asker(ApprovalAnswer("allow"), asked))
    assert [(r.name, r.agent) for r in asked] == [("touch_file", "Toucher")]
    assert target.exists()
    approval, = child_events(events, "approval")
    assert approval.decision == "approved"
    denied: list = []
    events = await collect(engine, f'call Toucher {{"path": "{tmp_path / "no"}"}}',
                           approver=_asker(ApprovalAnswer("deny"), denied))
    assert denied and not (tmp_path / "no").exists()
    assert child_events(events, "approval")[0].decision == "denied"


async def test_without_an_approver_a_childs_open_call_is_refused_and_auto_mode_runs_it(engine, tmp_path):
    """Headless, an open call of a child is refused with a note and the parent goes on; the auto
    mode runs it."""
    events = await collect(engine, f'call Toucher {{"path": "{tmp_path / "headless"}"}}')
    result, = child_events(events, "tool_result")
    assert HEADLESS_DENIAL in result.content and not (tmp_path / "headless").exists()
    assert events[-1].type == "done"  # the parent's turn goes on
    engine.set_approval_mode("auto")
    await collect(engine, f'call Toucher {{"path": "{tmp_path / "auto"}"}}')
    assert (tmp_path / "auto").exists()


class Scripted(BaseChatModel):
    """Answers with the given texts in turn (the offline model only restates its input)."""

    replies: list[str]
    asked: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.asked.append(str(messages[-1].content))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(
            content=self.replies.pop(0), usage_metadata={
                "input_tokens": 5, "output_tokens": 3, "total_tokens": 8}))])


@pytest.mark.parametrize("replies, answer, asks", [
    (['{"summary": "ok"}'], '{"summary": "ok"}', 1),
    (['Sure: {"summary": "ok"} done'], '{"summary": "ok"}', 1),  # prose around it
    (["no json", '{"summary": "second"}'], '{"summary": "second"}', 2),
    (["no json", "still none"], "still none", 2),  # the reply as it is, as Birdie does
    (['{"summary": 3}', '{"summary": "3"}'], '{"summary": "3"}', 2),
])
async def test_declared_outputs_are_checked_with_one_retry(engine, monkeypatch, replies, answer,
                                                           asks):
    """Declared outputs are checked as Birdie checks them: JSON found in prose is kept, a bad reply
    is retried once, a second bad one is returned as it is."""
    model = Scripted(replies=list(replies), asked=[])

    async def model_for(agent):
        return model

    monkeypatch.setattr(engine.host.agent, "model_for", model_for)
    events = await collect(engine, 'call Shaped {"text": "short"}')
    result = next(e for e in events if e.type == "tool_result")
    assert result.content == answer
    assert len(model.asked) == asks
    assert "exactly these fields" in model.asked[0] and '"summary" (string)' in model.asked[0]
    if asks == 2:
        assert model.asked[1].startswith("Your previous reply was invalid: ")
    finished, = of(events, AgentFinished)
    assert finished.calls == asks and finished.input_tokens == 5 * asks


async def test_a_child_past_its_recursion_limit_ends_in_error(engine):
    """A child that runs out of steps ends in error; the parent's model reads why and the turn
    ends."""
    events = await collect(engine, "call Looper")
    finished, = of(events, AgentFinished)
    assert finished.status == "error" and "recursion_limit" in finished.error
    result = next(e for e in events if e.type == "tool_result")
    assert result.error and events[-1].type == "done"


async def test_cancelling_the_turn_stops_the_child_and_its_tool_and_keeps_histories_valid(
        engine, isolated_home):
    """Cancelling the turn mid-child kills the child's tool process, bills what was spent, and
    leaves both histories valid."""
    seen: list = []

    async def consume():
        async for event in engine.run_turn("call Sleeper"):
            seen.append(event)

    task = asyncio.create_task(consume())
    marker = Path(isolated_home) / "slow.started"
    for _ in range(200):
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.exists()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    started, = of(seen, AgentStarted)
    assert not await _processes_under(isolated_home)  # the child's tool died with the turn
    spent = sum(e.input_tokens for e in [*child_events(seen, "usage"),
                                        *(e for e in seen if e.type == "usage")])
    assert engine.host.sessions.load(engine.session.id).input_tokens == spent  # all billed
    child = await engine.messages(started.child)
    assert repair_history(child)[1] is False  # the child's thread is valid as it stands
    events = await collect(engine, "still here?")
    assert events[-1].type == "done"
    messages = await engine.messages()
    assert repair_history(messages)[1] is False


async def _processes_under(home) -> list[str]:
    """The slow tool's processes (run with BIRDIE_HOME=`home`) still alive after up to 5 s."""
    for _ in range(100):
        alive = []
        for proc in Path("/proc").iterdir():
            try:
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                env = (proc / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"BIRDIE_HOME={home}".encode() in env and "sleep" in cmd:
                alive.append(cmd)
        if not alive:
            return []
        await asyncio.sleep(0.05)
    return alive


async def test_two_agents_in_one_message_run_side_by_side(engine):
    """Two sub-agent calls of one message start before either ends, and both answer."""
    events = await collect(engine, 'call Repeater {"text": "one"}\ncall Shaped {"text": "two"}')
    kinds = [(e.type, getattr(e, "name", "")) for e in events if e.type.startswith("agent_")]
    assert kinds[:2] == [("agent_start", "Repeater"), ("agent_start", "Shaped")]
    assert {name for kind, name in kinds[2:]} == {"Repeater", "Shaped"}
    results = [e for e in events if e.type == "tool_result"]
    assert len(results) == 2 and not any(r.error for r in results)


async def test_agents_are_off_until_enabled_and_the_grant_is_kept_as_birdie_keeps_it(engine):
    """Agents are off by default; a grant (by Birdie's name resolution) is kept under Birdie's
    keys."""
    await engine.open_session()  # a new session: nothing enabled
    events = await collect(engine, 'call Repeater {"text": "x"}')
    assert not of(events, AgentStarted)
    engine.book.set_agent_enabled("rep", True)  # Birdie's name resolution: a unique prefix
    events = await collect(engine, 'call Repeater {"text": "x"}')
    assert of(events, AgentStarted)
    meta = engine.host.sessions.load(engine.session.id)
    assert meta.extra["enabled_agents"] == ["Repeater"]
    engine.book.set_agent_enabled("Repeater", False)
    assert engine.host.sessions.load(engine.session.id).extra["disabled_agents"] == ["Repeater"]


def test_a_call_repeated_past_the_limit_is_not_run():
    """The repeated-call guard counts consecutive identical calls as Birdie does."""
    from langchain_core.messages import AIMessage, ToolMessage

    call = {"name": "t", "args": {"a": 1}, "id": "x"}
    step = [AIMessage(content="", tool_calls=[{**call, "id": f"c{i}"}]) for i in range(4)]
    history = []
    for msg in step:
        history += [msg, ToolMessage(content="r", tool_call_id=msg.tool_calls[0]["id"])]
    assert repeated(history[:6], call, 3) is None  # three in a row: allowed
    assert "more than 3 times" in (repeated(history, call, 3) or "")
    assert repeated(history, {**call, "args": {"a": 2}}, 3) is None
    assert repeated(history, call, None) is None


async def test_deleting_a_session_deletes_its_childrens_threads(engine):
    """Deleting a session deletes its children's threads with it."""
    events = await collect(engine, 'call Repeater {"text": "gone soon"}')
    started, = of(events, AgentStarted)
    sid = engine.session.id
    assert await engine.messages(started.child)
    await engine.open_session()
    await engine.book.delete_session(sid)
    assert await engine.messages(started.child) == []


@pytest.mark.integration
async def test_an_agents_own_mcp_server_serves_only_its_child_and_ends_with_it(engine):
    """A Markdown agent's `mcp:` entry: its child calls the server's tool (the bundled demo
    server, a real stdio process); the parent never sees that tool, and the server stops when
    the child ends."""
    import sys

    from birdie_tui.agent_files.models import AgentDef, AgentLoad, AgentParam
    from birdie_tui.agent_files.registry import AgentRegistry
    from birdie_tui.skills.bundled import bundled_skills_dir

    server = bundled_skills_dir() / "mcp_demo" / "server.py"
    agent = AgentDef(name="Reverser", description="Reverses with its own server.",
                     prompt="{{ task }}", format="markdown",
                     inputs=(AgentParam("task", "string", "What to do"),),
                     mcp=({"name": "demo", "command": sys.executable, "args": [str(server)]},))
    engine.host.agent.agents = AgentRegistry(AgentLoad(agents=[agent], problems=[], notes=[]))
    engine.book.set_agent_enabled("Reverser", True)
    events = await collect(engine, 'call Reverser {"task": "call reverse_string {\\"text\\": \\"abc\\"}"}')
    result, = child_events(events, "tool_result")
    assert not result.error and "cba" in result.content
    assert engine.host.agent.given.of(of(events, AgentStarted)[0].child) is None  # stopped
    events = await collect(engine, 'call reverse_string {"text": "abc"}')
    assert "not available" in events[-1].text


async def test_agent_parallel_bounds_how_many_children_run_at_once(engine, isolated_home):
    """With agent_parallel 1 the second child starts only when the first has ended."""
    engine.host.agent.settings.agent_parallel = 1  # as settings.json's "agent_parallel": 1
    events = await collect(engine, 'call Repeater {"text": "one"}\ncall Shaped {"text": "two"}')
    kinds = [e.type for e in events if e.type.startswith("agent_")]
    assert kinds == ["agent_start", "agent_end", "agent_start", "agent_end"]
