"""The served graph's factory driven in-process (no server): a LangGraph checkpointer put in
as the server puts its own, the thread's grants given in `config["metadata"]["birdie"]`."""

from __future__ import annotations

import asyncio
import json
import os
import uuid

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.agent.wire import injected_from_wire
from birdie_tui.server.graph import make_graph
from birdie_tui.server.runtime import BirdieRuntime, install_runtime


@pytest.fixture
def served(tmp_path, monkeypatch):
    """make_graph() with a checkpointer, over a runtime of this test's home and workdir."""
    monkeypatch.chdir(tmp_path)
    rt = BirdieRuntime(environ=dict(os.environ), workdir=tmp_path)
    before = install_runtime(rt)
    graph = make_graph().copy(update={"checkpointer": InMemorySaver()})
    yield graph, rt
    install_runtime(before)


def config(thread: str, **grants) -> dict:
    return {"configurable": {"thread_id": thread}, "metadata": {"birdie": grants}}


def ask(text: str) -> dict:
    return {"messages": [HumanMessage(text, id=str(uuid.uuid4()))]}


async def run(graph, inputs, cfg) -> list[tuple[str, dict]]:
    return [(mode, data) async for mode, data in
            graph.astream(inputs, cfg, stream_mode=["updates", "custom"])]


WRITE = 'call write_file {"path": "out.txt", "content": "made"}'


async def test_a_turn_stops_for_approval_and_resumes(served, tmp_path):
    """The factory's graph: a gated call interrupts with the request, the resume runs it,
    and every custom event is plain JSON."""
    graph, _ = served
    cfg = config("t1")
    first = await run(graph, ask(WRITE), cfg)
    [pending] = [d["__interrupt__"] for m, d in first if m == "updates" and "__interrupt__" in d]
    [request] = pending[0].value["approvals"]
    assert request["name"] == "write_file" and not (tmp_path / "out.txt").exists()
    second = await run(graph, Command(resume={request["id"]: ApprovalAnswer("allow").to_dict()}),
                       cfg)
    assert (tmp_path / "out.txt").read_text() == "made"
    custom = [d for m, d in first + second if m == "custom"]
    assert all(json.loads(json.dumps(event)) == event for event in custom)
    assert {"approval": {"id": request["id"], "name": "write_file",
                         "decision": "approved"}} in custom
    assert injected_from_wire(custom[0]["injected"]).context.turn == 1


async def test_grants_are_read_per_run_and_never_shared(served, tmp_path):
    """Two threads at once, one with the filesystem skill disabled and an allow rule the
    other lacks: each run sees only its own grants."""
    graph, rt = served
    off, on = config("off", disabled_skills=["filesystem"]), config("on",
                                                                   approval_rules=["write_file"])
    await asyncio.gather(run(graph, ask(WRITE), off), run(graph, ask(WRITE), on))
    assert (tmp_path / "out.txt").read_text() == "made"  # "on": allowed by its rule, unasked
    reply = (await graph.aget_state(off)).values["messages"][-1].content
    assert "`write_file` is not available" in reply
    assert (await graph.aget_state(on)).interrupts == ()
    common = dict(loading="both", decay_turns=5)
    assert rt.toolbox(["a"], [], **common) is rt.toolbox(["a"], [], **common)
    assert rt.toolbox(["a"], [], **common) is not rt.toolbox([], ["a"], **common)


def test_the_factory_compiles_once_without_a_checkpointer():
    """The server injects its checkpointer into a copy: the factory's graph has none."""
    assert make_graph() is make_graph({"configurable": {}})
    assert make_graph().checkpointer is None


@pytest.mark.integration
async def test_the_served_graph_on_the_postgres_checkpointer(served, tmp_path, pg_url):
    """In production the server's checkpointer is LangGraph's Postgres one: the served graph
    stops for approval there, a second graph object (another server process) finds the same
    request in the database, and its resume runs the tool once."""
    from birdie_tui.agent.pg_checkpoints import open_pg_checkpoints

    graph, _ = served
    first, second = await open_pg_checkpoints(pg_url), await open_pg_checkpoints(pg_url)
    try:
        one = graph.copy(update={"checkpointer": first.saver})
        two = graph.copy(update={"checkpointer": second.saver})
        cfg = config("pg-thread")
        await run(one, ask(WRITE), cfg)
        [interrupt] = (await two.aget_state(cfg)).interrupts
        [request] = interrupt.value["approvals"]
        await run(two, Command(resume={request["id"]: ApprovalAnswer("allow").to_dict()}), cfg)
        assert (tmp_path / "out.txt").read_text() == "made"
        state = await one.aget_state(cfg)
        assert state.interrupts == () and state.values["messages"][-1].type == "ai"
    finally:
        await first.aclose()
        await second.aclose()
