"""A scheduled run on the served graph, driven in-process (no server): a thread whose `birdie`
metadata has `run` = {"agent": NAME} (what `agents start --server` puts on its cron jobs) runs
as that agent: only its allowed skills' tools, its approval policy; an agent the server does
not have is the run's error, in one line."""

from __future__ import annotations

import os
import uuid

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from birdie_tui.server.graph import make_graph
from birdie_tui.server.runtime import BirdieRuntime, install_runtime
from tests.server.test_served_agents import WRITER_PROMPT, write_agent


@pytest.fixture
def served(tmp_path, monkeypatch, isolated_home):
    """make_graph() with a checkpointer over a runtime whose home has two agent files."""
    write_agent(isolated_home, "Writer", WRITER_PROMPT)
    write_agent(isolated_home, "Planner", "Plan {{ path }}", skills="planning")
    monkeypatch.chdir(tmp_path)
    rt = BirdieRuntime(environ=dict(os.environ), workdir=tmp_path)
    before = install_runtime(rt)
    yield make_graph().copy(update={"checkpointer": InMemorySaver()})
    install_runtime(before)


def run_config(agent: str | None, **grants) -> dict:
    run = {"trigger_key": f"{agent}:every", "agent": agent, "trigger": "every 5m"}
    return {"configurable": {"thread_id": uuid.uuid4().hex},
            "metadata": {"birdie": {"run": run, **grants}}}


def ask(text: str) -> dict:
    return {"messages": [HumanMessage(text, id=str(uuid.uuid4()))]}


def tools_line(reply: str) -> str:
    return next(line for line in reply.splitlines() if "Tools I could call" in line)


async def test_a_run_thread_gets_only_its_agents_skills(served):
    """The offline model lists the tools it was offered: a plain thread gets every skill's,
    a run of Planner (allowed_skills: planning) none of the filesystem's."""
    plain = await served.ainvoke(ask("hello"), {"configurable": {"thread_id": "plain"}})
    assert "write_file" in tools_line(plain["messages"][-1].content)
    run = await served.ainvoke(ask("hello"), run_config("Planner"))
    offered = tools_line(run["messages"][-1].content)
    assert "write_file" not in offered and "run_bash" not in offered


async def test_a_gated_call_of_a_run_stops_it_pending(served, tmp_path):
    """The trigger's policy is the thread's mode (a read-only run's is `ask`, with no one to
    ask): Writer's write_file is an interrupt (answered later), nothing is written; in an auto
    run it is written."""
    cfg = run_config("Writer", approval_mode="ask")
    await served.ainvoke(ask('call write_file {"path": "a.txt", "content": "x"}'), cfg)
    state = await served.aget_state(cfg)
    assert state.interrupts and not (tmp_path / "a.txt").exists()
    cfg = run_config("Writer", approval_mode="auto")
    await served.ainvoke(ask('call write_file {"path": "b.txt", "content": "y"}'), cfg)
    assert (tmp_path / "b.txt").read_text() == "y"


async def test_a_run_of_an_agent_the_server_lacks_fails_saying_so(served):
    """No file named Ghost on the server: the run raises one line naming it."""
    with pytest.raises(ValueError, match="'Ghost' is not in the server's agent folders"):
        await served.ainvoke(ask("hello"), run_config("Ghost"))
