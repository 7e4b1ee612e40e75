"""The server operator's `approval_mode` is a ceiling: a thread (a client's `--auto-approve`)
may ask for a stricter mode, never a more permissive one. The served graph, in process."""

from __future__ import annotations

import json
import os
import uuid

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from birdie_tui.server.catalog import build_catalog
from birdie_tui.server.graph import build_server_graph, capped_mode
from birdie_tui.server.runtime import BirdieRuntime, install_runtime

WRITE = 'call write_file {"path": "out.txt", "content": "made"}'


@pytest.fixture
def serve(tmp_path, monkeypatch, isolated_home):
    """A served graph over a runtime whose settings.json holds `operator` (None: no file)."""
    monkeypatch.chdir(tmp_path)
    installed = []

    def make(operator: dict | None):
        if operator is not None:
            (isolated_home / "settings.json").write_text(json.dumps(operator))
        rt = BirdieRuntime(environ=dict(os.environ), workdir=tmp_path)
        installed.append(install_runtime(rt))
        return build_server_graph(InMemorySaver()), rt

    yield make
    if installed:
        install_runtime(installed[0])


async def _turn(graph, **grants):
    cfg = {"configurable": {"thread_id": str(uuid.uuid4())}, "metadata": {"birdie": grants}}
    await graph.ainvoke({"messages": [HumanMessage(WRITE, id=str(uuid.uuid4()))]}, cfg)
    return await graph.aget_state(cfg)


async def test_client_auto_does_not_override_operator_read_only(serve, tmp_path):
    """Operator `read-only`, thread `auto` (what --auto-approve writes): the gated write is
    denied without asking, the file is never made, and the catalog says the ceiling."""
    graph, rt = serve({"approval_mode": "read-only"})
    state = await _turn(graph, approval_mode="auto")
    assert not (tmp_path / "out.txt").exists()
    assert state.interrupts == ()
    assert "read-only" in str(state.values["messages"][-2].content)
    catalog = await build_catalog(rt, [], [])
    assert catalog["server"]["approval_ceiling"] == "read-only"


async def test_operator_ask_turns_client_auto_into_a_question(serve, tmp_path):
    """Operator `ask`, thread `auto`: the call waits for approval instead of running."""
    graph, _ = serve({"approval_mode": "ask"})
    state = await _turn(graph, approval_mode="auto")
    assert state.interrupts and not (tmp_path / "out.txt").exists()


async def test_no_operator_mode_lets_the_thread_choose(serve, tmp_path):
    """A server whose settings.json sets no approval_mode: a thread's `auto` runs the call."""
    graph, _ = serve(None)
    await _turn(graph, approval_mode="auto")
    assert (tmp_path / "out.txt").read_text() == "made"


def test_capped_mode_orders_read_only_ask_auto():
    """min(thread, operator) over read-only < ask < auto; a thread's unknown mode is the
    default, itself capped."""
    assert capped_mode("auto", "ask", "read-only") == "read-only"
    assert capped_mode("auto", "ask", "ask") == "ask"
    assert capped_mode("read-only", "ask", "auto") == "read-only"
    assert capped_mode("bogus", "auto", "ask") == "ask"
