"""Sub-agents on the served graph driven in-process (no server): the thread's grants in
`config["metadata"]["birdie"]`, a LangGraph checkpointer put in as the server puts its own.
The agent files' children run on their own threads in that checkpointer; every custom event
is plain JSON; a child's call the thread leaves open is refused (no approver on a server)."""

from __future__ import annotations

import json
import os
import textwrap
import uuid

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from birdie_tui.agent.ledger import AGENT_USAGE_KEY
from birdie_tui.agent.subagents import HEADLESS_DENIAL
from birdie_tui.agent.wire import child_from_wire
from birdie_tui.events import AgentFinished, AgentStarted, ChildEvent, ToolFinished, UsageReported
from birdie_tui.server.graph import make_graph
from birdie_tui.server.runtime import BirdieRuntime, install_runtime

AGENT = """\
---
name: {name}
description: {description}
allowed_skills: [{skills}]
---

## Input

### path
type: string
description: The file to write

## Prompt

{prompt}
"""
WRITER_PROMPT = 'call write_file {"path": "{{ path }}", "content": "from the child"}'


def write_agent(home, name: str, prompt: str, description: str = "Does one thing.",
                skills: str = "filesystem") -> None:
    folder = home / "agents" / name.lower()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "AGENT.MD").write_text(AGENT.format(name=name, description=description,
                                                  prompt=prompt, skills=skills))


@pytest.fixture
def served(tmp_path, monkeypatch, isolated_home):
    """make_graph() with a checkpointer over a runtime whose home has two agent files."""
    write_agent(isolated_home, "Writer", WRITER_PROMPT)
    write_agent(isolated_home, "Echoer", "Echo this: {{ path }}")
    monkeypatch.chdir(tmp_path)
    rt = BirdieRuntime(environ=dict(os.environ), workdir=tmp_path)
    before = install_runtime(rt)
    saver = InMemorySaver()
    yield make_graph().copy(update={"checkpointer": saver}), saver
    install_runtime(before)


def config(thread: str, **grants) -> dict:
    return {"configurable": {"thread_id": thread}, "metadata": {"birdie": grants}}


def ask(text: str) -> dict:
    return {"messages": [HumanMessage(text, id=str(uuid.uuid4()))]}


async def custom_events(graph, inputs, cfg) -> list[dict]:
    return [data async for mode, data in graph.astream(inputs, cfg, stream_mode=["custom"])
            if mode == "custom"]


def children(custom: list[dict]) -> list:
    """The sub-agents' events of a run, read back from their JSON."""
    for item in custom:
        assert json.loads(json.dumps(item)) == item  # plain JSON, as a server streams it
    return [child_from_wire(item["child"]) for item in custom if "child" in item]


async def test_a_served_call_runs_the_agent_on_a_child_thread_of_the_same_checkpointer(
        served):
    """agent_start, the child's events (each with the child's id) and agent_end as JSON; the
    answer is the call's result with the child's usage on it; the child's history is in the
    server's checkpointer under `<thread>/agent/Echoer-<hex>`."""
    graph, saver = served
    cfg = config("t1", enabled_agents=["Echoer"])
    events = children(await custom_events(graph, ask('call Echoer {"path": "hi"}'), cfg))
    start, *inner, end = events
    assert isinstance(start, AgentStarted) and start.name == "Echoer"
    assert start.inputs == {"path": "hi"} and start.child.startswith("t1/agent/Echoer-")
    assert isinstance(end, AgentFinished) and end.status == "done" and end.calls == 1
    assert inner and all(isinstance(e, ChildEvent) and e.child == start.child for e in inner)
    [usage] = [e.event for e in inner if isinstance(e.event, UsageReported)]
    assert (usage.input_tokens, usage.output_tokens) == (end.input_tokens, end.output_tokens)
    messages = (await graph.aget_state(cfg)).values["messages"]
    result = next(m for m in messages if m.type == "tool")
    assert "Echo this: hi" in result.content
    assert result.additional_kwargs[AGENT_USAGE_KEY]["child"] == start.child
    child = await graph.aget_state({"configurable": {"thread_id": start.child}})
    assert [m.type for m in child.values["messages"]] == ["human", "ai"]
    assert any(c.config["configurable"]["thread_id"] == start.child
               for c in saver.list(None))


async def test_an_agent_is_a_tool_only_where_the_thread_enabled_it(served):
    """Off by default, as in Birdie: without the grant the model is not offered it; a thread
    that disables an agent enabled elsewhere does not get it either."""
    graph, _ = served
    for cfg in (config("off"), config("both", enabled_agents=["Echoer"],
                                      disabled_agents=["Echoer"])):
        assert children(await custom_events(graph, ask('call Echoer {"path": "x"}'), cfg)) == []
        reply = (await graph.aget_state(cfg)).values["messages"][-1].content
        assert "`Echoer` is not available" in reply


async def test_a_childs_gated_call_is_refused_without_an_approver_and_runs_in_auto_mode(
        served, tmp_path):
    """write_file asks for approval: in "ask" mode the child's call is refused with the
    runner's note and nothing is written (a server has no one to ask); in "auto" mode (the
    thread's, below the server's ceiling) the child's call runs."""
    graph, _ = served
    cfg = config("ask", enabled_agents=["Writer"])
    events = children(await custom_events(graph, ask('call Writer {"path": "a.txt"}'), cfg))
    [refused] = [e.event for e in events if isinstance(e, ChildEvent)
                 and isinstance(e.event, ToolFinished)]
    assert refused.error and HEADLESS_DENIAL in refused.content
    assert not (tmp_path / "a.txt").exists()
    assert (await graph.aget_state(cfg)).interrupts == ()  # the parent never stopped

    cfg = config("auto", enabled_agents=["Writer"], approval_mode="auto")
    events = children(await custom_events(graph, ask('call Writer {"path": "b.txt"}'), cfg))
    [ran] = [e.event for e in events if isinstance(e, ChildEvent)
             and isinstance(e.event, ToolFinished)]
    assert not ran.error
    assert (tmp_path / "b.txt").read_text() == "from the child"
