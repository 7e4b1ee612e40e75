"""Sessions written by the original Birdie 0.1.5 CLI open and continue (docs/contracts.md,
Files on disk).

Birdie 0.1.5 kept `$BIRDIE_HOME/sessions/<user>/<id>.json` with exactly the keys id, user_id,
created_at, updated_at, turns, enabled_skills, disabled_skills, and its history in
`checkpoints.db` (LangGraph AsyncSqliteSaver, thread_id = session id) of a StateGraph over
`{"messages": Annotated[Sequence[BaseMessage], add_messages]}` with nodes "agent" and "tools",
whose node functions took `(state, config)` and read `long_term_memory` from `configurable`.
The tests below rebuild that graph with its own saver on the same database file, run it the way
Birdie did, then hand the files to our Engine.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, TypedDict

import aiosqlite
import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig

from .conftest import collect, history_tokens

USER = "tester"
SESSION_ID = "2026-04-29_1"
BIRDIE_KEYS = ["id", "user_id", "created_at", "updated_at", "turns", "enabled_skills",
               "disabled_skills"]
BIRDIE_CALL_ID = "call_birdie_0001"


class BirdieCrash(Exception):
    """Stands for the process dying between the agent step and the tools step."""


class BirdieState(TypedDict):
    messages: Annotated[Sequence[BaseMessage], add_messages]


def birdie_graph(checkpointer, *, crash_in_tools: bool = False):
    """Birdie 0.1.5's graph shape, with a scripted model instead of a provider."""

    async def call_model(state: BirdieState, config: RunnableConfig) -> dict:
        assert "thread_id" in config["configurable"]
        last = state["messages"][-1]
        if isinstance(last, HumanMessage):
            return {"messages": [AIMessage(
                content="",
                tool_calls=[{"id": BIRDIE_CALL_ID, "name": "echo_text",
                             "args": {"text": "from birdie"}}],
                usage_metadata={"input_tokens": 120, "output_tokens": 9, "total_tokens": 129},
                response_metadata={"model_name": "mistral-large-latest"},
            )]}
        return {"messages": [AIMessage(
            content="Birdie echoed: from birdie",
            usage_metadata={"input_tokens": 140, "output_tokens": 6, "total_tokens": 146},
        )]}

    async def execute_tools(state: BirdieState, config: RunnableConfig) -> dict:
        if crash_in_tools:
            raise BirdieCrash("the process died while the tool ran")
        last = state["messages"][-1]
        return {"messages": [ToolMessage(content="from birdie", tool_call_id=c["id"],
                                         name=c["name"]) for c in last.tool_calls]}

    def should_continue(state: BirdieState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    workflow = StateGraph(BirdieState)
    workflow.add_node("agent", call_model)
    workflow.add_node("tools", execute_tools)
    workflow.add_edge(START, "agent")
    workflow.add_conditional_edges("agent", should_continue, {"tools": "tools", END: END})
    workflow.add_edge("tools", "agent")
    return workflow.compile(checkpointer=checkpointer)


def birdie_config(session_id: str = SESSION_ID) -> dict:
    return {"configurable": {"thread_id": session_id, "long_term_memory": ["likes tea"]}}


async def with_birdie_saver(home: Path, action):
    user_dir = home / "sessions" / USER
    user_dir.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(str(user_dir / "checkpoints.db")) as conn:
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
        return await action(saver)


def write_birdie_json(home: Path, session_id: str = SESSION_ID, *, turns: int = 1,
                      enabled=("Echoer",), disabled=("ssh",)) -> Path:
    path = home / "sessions" / USER / f"{session_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "id": session_id,
        "user_id": USER,
        "created_at": "2026-04-29T10:15:02.123456",  # Birdie wrote naive local timestamps
        "updated_at": "2026-04-29T10:16:40.654321",
        "turns": turns,
        "enabled_skills": list(enabled),
        "disabled_skills": list(disabled),
    }
    assert list(data) == BIRDIE_KEYS
    path.write_text(json.dumps(data, indent=2))
    return path


@pytest.fixture
async def birdie_engine(skills_dir):
    engines = []

    async def make() -> Engine:
        engine = Engine(EngineOptions(skills_dirs=[skills_dir],
                                      provider=ProviderConfig(vendor="offline"), tool_timeout=10))
        await engine.start()
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        await engine.aclose()


async def test_birdie_session_opens_and_continues(isolated_home, birdie_engine):
    """A Birdie 0.1.5 session opens with its history and grants, continues, stays readable."""
    async def run_birdie(saver):
        graph = birdie_graph(saver)
        await graph.ainvoke({"messages": [HumanMessage(content="echo from birdie please")]},
                            birdie_config())
        return await graph.aget_state(birdie_config())

    birdie_state = await with_birdie_saver(isolated_home, run_birdie)
    assert birdie_state.next == ()
    json_path = write_birdie_json(isolated_home)

    engine = await birdie_engine()
    # It is listed like any session of ours.
    assert [m.id for m in engine.list_sessions()] == [SESSION_ID]

    opened = await engine.open_session(SESSION_ID)
    assert (opened.id, opened.new) == (SESSION_ID, False)

    # The history is Birdie's, untouched.
    history = await engine.messages()
    assert [type(m) for m in history] == [HumanMessage, AIMessage, ToolMessage, AIMessage]
    assert history[0].content == "echo from birdie please"
    assert history[1].tool_calls[0]["id"] == BIRDIE_CALL_ID
    assert history[2].tool_call_id == BIRDIE_CALL_ID and history[2].content == "from birdie"
    assert history[3].content == "Birdie echoed: from birdie"
    assert [m.id for m in history] == [m.id for m in birdie_state.values["messages"]]
    assert history_problems(history) == []
    assert history_tokens(history) == (260, 15)

    # The grants are applied.
    registry = engine.registry
    assert engine.is_enabled(registry.get("Echoer"))
    assert not engine.is_enabled(registry.get("ssh"))
    assert engine.policy.enabled_names == ["Echoer"]
    assert engine.policy.disabled_names == ["ssh"]

    # A new turn works, on top of Birdie's history.
    events = await collect(engine, "ssh question: call echo_text {\"text\": \"from tui\"}")
    kinds = [e.type for e in events]
    assert kinds[-1] == "done", events
    # ssh is disabled for this session: its trigger injects nothing.
    assert all(s.name != "ssh" for e in events if e.type == "injected" for s in e.skills)

    events = await collect(engine, 'call echo_text {"text": "from tui"}')
    results = [e for e in events if e.type == "tool_result"]
    assert [(r.name, r.content, r.error) for r in results] == [("echo_text", "from tui", False)]
    assert events[-1].type == "done"

    final = await engine.messages()
    assert history_problems(final) == []
    assert final[:4] == history  # Birdie's part is kept, in place
    assert [type(m) for m in final[4:]] == [HumanMessage, AIMessage,
                                            HumanMessage, AIMessage, ToolMessage, AIMessage]

    # The JSON keeps Birdie's keys and values (plus ours).
    data = json.loads(json_path.read_text())
    assert set(BIRDIE_KEYS) <= set(data)
    assert list(data)[:len(BIRDIE_KEYS)] == BIRDIE_KEYS
    assert data["id"] == SESSION_ID and data["user_id"] == USER
    assert data["created_at"] == "2026-04-29T10:15:02.123456"
    assert data["updated_at"] != "2026-04-29T10:16:40.654321"
    assert data["turns"] == 3
    assert data["enabled_skills"] == ["Echoer"] and data["disabled_skills"] == ["ssh"]
    assert data["title"]
    assert data["input_tokens"] > 0 and data["output_tokens"] > 0

    # And Birdie 0.1.5 itself can still read the checkpoint afterwards.
    async def reread(saver):
        return await birdie_graph(saver).aget_state(birdie_config())

    state = await with_birdie_saver(isolated_home, reread)
    assert [m.id for m in state.values["messages"]] == [m.id for m in final]


async def test_birdie_grants_enable_a_default_off_skill(isolated_home, skills_dir,
                                                        birdie_engine):
    """Birdie's enabled/disabled lists (any case) switch skills on and off for its session."""
    async def run_birdie(saver):
        await birdie_graph(saver).ainvoke(
            {"messages": [HumanMessage(content="hi")]}, birdie_config())

    await with_birdie_saver(isolated_home, run_birdie)
    write_birdie_json(isolated_home, enabled=["quiet"], disabled=["Echoer"])  # any case
    engine = await birdie_engine()
    await engine.open_session(SESSION_ID)
    events = await collect(engine, "call hush")
    assert [e.name for e in events if e.type == "tool_call"] == ["hush"]
    events = await collect(engine, 'call echo_text {"text": "no"}')
    assert not [e for e in events if e.type == "tool_call"]


async def test_birdie_crash_left_a_dangling_call_repaired_in_place(isolated_home,
                                                                   birdie_engine):
    """Birdie was killed while its tool ran: the checkpoint ends with an unanswered call and
    the graph still waits for "tools"."""

    async def run_birdie(saver):
        graph = birdie_graph(saver, crash_in_tools=True)
        with pytest.raises(BirdieCrash):
            await graph.ainvoke({"messages": [HumanMessage(content="echo and crash")]},
                                birdie_config())
        return await graph.aget_state(birdie_config())

    crashed = await with_birdie_saver(isolated_home, run_birdie)
    assert crashed.next == ("tools",)
    assert history_problems(crashed.values["messages"])
    write_birdie_json(isolated_home, turns=0)

    engine = await birdie_engine()
    await engine.open_session(SESSION_ID)
    healed = await engine.messages()
    # The answer goes right after the call (in place); the turn the crash cut short is then
    # closed with the same mark SIGTERM leaves.
    assert [type(m) for m in healed] == [HumanMessage, AIMessage, ToolMessage, AIMessage]
    assert healed[2].tool_call_id == BIRDIE_CALL_ID and healed[2].status == "error"
    assert "[interrupted]" in healed[3].content
    assert history_problems(healed) == []
    state = await engine.host.graph.aget_state(engine.history.config())
    assert state.next == ()  # the pending "tools" step will not run Birdie's call later

    events = await collect(engine, "are you back?")
    assert events[-1].type == "done"
    assert not [e for e in events if e.type == "tool_call"]
    final = await engine.messages()
    assert history_problems(final) == []
    assert final[:4] == healed
    assert [type(m) for m in final[4:]] == [HumanMessage, AIMessage]


async def test_birdie_late_placeholder_is_moved_into_place(isolated_home, birdie_engine):
    """Birdie 0.1.5 repaired a dangling call by appending the placeholder ToolMessage to the
    end of the history, after the next user message. Such a history is fixed in place."""
    call = {"id": BIRDIE_CALL_ID, "name": "echo_text", "args": {"text": "x"}}
    placeholder = ToolMessage(content="Tool execution was interrupted.",
                              tool_call_id=BIRDIE_CALL_ID, name="echo_text")
    messages = [
        HumanMessage(content="first", id="h1"),
        AIMessage(content="", tool_calls=[call], id="a1"),
        HumanMessage(content="second", id="h2"),
        placeholder.model_copy(update={"id": "t1"}),
        AIMessage(content="Sorry, the tool was interrupted.", id="a2"),
    ]

    async def write_history(saver):
        graph = birdie_graph(saver)
        await graph.aupdate_state(birdie_config(), {"messages": messages}, as_node="agent")
        return await graph.aget_state(birdie_config())

    written = await with_birdie_saver(isolated_home, write_history)
    assert [m.id for m in written.values["messages"]] == ["h1", "a1", "h2", "t1", "a2"]
    assert history_problems(written.values["messages"])
    write_birdie_json(isolated_home, turns=2)

    engine = await birdie_engine()
    await engine.open_session(SESSION_ID)
    healed = await engine.messages()
    assert [m.id for m in healed] == ["h1", "a1", "t1", "h2", "a2"]
    assert history_problems(healed) == []

    events = await collect(engine, "third")
    assert events[-1].type == "done"
    final = await engine.messages()
    assert [m.id for m in final[:5]] == ["h1", "a1", "t1", "h2", "a2"]
    assert history_problems(final) == []


async def test_birdie_session_rewinds_and_forks(isolated_home, birdie_engine):
    """A Birdie 0.1.5 session (its counts kept by Birdie: no history_counted) rewinds and
    forks: the turns follow the history, Birdie's tokens stay, Birdie still reads it."""
    async def run_birdie(saver):
        graph = birdie_graph(saver)
        for text in ("echo from birdie please", "and once more"):
            await graph.ainvoke({"messages": [HumanMessage(content=text)]}, birdie_config())

    await with_birdie_saver(isolated_home, run_birdie)
    json_path = write_birdie_json(isolated_home, turns=2)
    engine = await birdie_engine()
    await engine.open_session(SESSION_ID)
    history = await engine.messages()
    spent = (engine.session.input_tokens, engine.session.output_tokens)

    fork = await engine.fork(2)
    assert await engine.rewind(2) == "and once more"
    kept = await engine.messages()
    assert kept == history[:4] and history_problems(kept) == []
    data = json.loads(json_path.read_text())
    assert data["turns"] == 1 and list(data)[:len(BIRDIE_KEYS)] == BIRDIE_KEYS
    assert (engine.session.input_tokens, engine.session.output_tokens) == spent

    async def reread(saver):
        return await birdie_graph(saver).aget_state(birdie_config())

    state = await with_birdie_saver(isolated_home, reread)
    assert [m.id for m in state.values["messages"]] == [m.id for m in kept]

    await engine.open_session(fork.id)
    assert [m.id for m in await engine.messages()] == [m.id for m in kept]
    assert (engine.session.turns, engine.session.input_tokens) == (1, 0)
    events = await collect(engine, 'call echo_text {"text": "in the fork"}')
    assert events[-1].type == "done"
