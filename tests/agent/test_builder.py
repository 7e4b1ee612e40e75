"""The agent is put together in one place (`agent/builder.py`) and its tokens have one owner
(`accounting.TokenAccount`): the local engine and the served graph build on the same parts."""

from __future__ import annotations

import os

from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.agent.accounting import TokenAccount
from birdie_tui.agent.approvals import ApprovalPolicy
from birdie_tui.agent.builder import AgentParts, agent_context
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.graph import build_graph
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.server.graph import build_server_graph
from birdie_tui.server.runtime import BirdieRuntime
from birdie_tui.store import SessionMeta


def _edges(graph) -> set[tuple[str, str]]:
    return {(edge.source, edge.target) for edge in graph.get_graph().edges}


def test_served_and_local_graphs_are_one_topology():
    """The server's graph has the local graph's nodes and edges (defined once)."""
    local, served = build_graph(), build_server_graph()
    assert _edges(local) == _edges(served)
    assert set(local.get_graph().nodes) == set(served.get_graph().nodes)
    assert served.name == "birdie"


async def test_engine_and_server_runtime_share_the_builder(isolated_home, skills_dir):
    """The engine and the server's runtime each hold an `AgentParts`, and what they show as
    their registry, MCP manager, settings and model are the builder's."""
    engine = Engine(EngineOptions(skills_dirs=[skills_dir],
                                  provider=ProviderConfig(vendor="offline")))
    await engine.start()
    try:
        assert isinstance(engine.agent, AgentParts)
        assert engine.registry is engine.agent.registry and engine.mcp is engine.agent.mcp
        assert engine.model is engine.agent.model is not None
        assert engine.settings is engine.agent.settings
    finally:
        await engine.aclose()
    rt = BirdieRuntime(environ={**os.environ, "BIRDIE_SKILLS_DIR": str(skills_dir),
                                "LLM_VENDOR": "offline"})
    try:
        assert isinstance(rt.agent, AgentParts)
        assert rt.registry is rt.agent.registry and rt.registry.get("echoer") is not None
        assert await rt.chat_model() is rt.agent.model
    finally:
        await rt.aclose()


async def test_parts_teardown_closes_the_model_and_the_mcp_servers(isolated_home, skills_dir):
    """`AgentParts.aclose` closes the model's client and stops the MCP servers, and a model
    whose close fails does not keep the MCP servers running."""
    parts = AgentParts(EngineOptions(skills_dirs=[skills_dir],
                                     provider=ProviderConfig(vendor="offline")))
    closed: list[str] = []

    class Model:
        async def aclose(self) -> None:
            closed.append("model")
            raise RuntimeError("already gone")

    async def stop_mcp() -> None:
        closed.append("mcp")

    parts.model = Model()
    parts.mcp.aclose = stop_mcp  # type: ignore[method-assign]
    await parts.aclose()
    assert closed == ["model", "mcp"]


async def test_agent_context_takes_window_and_prompt_from_the_parts(isolated_home, skills_dir):
    """`agent_context` gives a run the parts' model, context window and system_prompt.md."""
    (isolated_home / "system_prompt.md").write_text("Be brief.")
    parts = AgentParts(EngineOptions(skills_dirs=[skills_dir],
                                     provider=ProviderConfig(vendor="offline")))
    await parts.load_model()
    ctx = agent_context(parts, toolbox=parts.toolbox(lambda: None), approvals=ApprovalPolicy(),
                        memory=["a note"], max_tool_calls=7, loading="model", decay_turns=2,
                        max_loaded=1)
    assert ctx.model is parts.model and ctx.context_window == parts.context_window
    assert "Be brief." in ctx.custom_prompt and ctx.memory == ["a note"]
    assert (ctx.max_tool_calls, ctx.loading, ctx.workdir) == (7, "model", None)
    await parts.aclose()


class _Store:
    """A session store holding one session's file in memory (the `update` accounting calls)."""

    def __init__(self, disk: SessionMeta):
        self.disk = disk

    def update(self, session_id, change):
        change(self.disk)
        return self.disk  # the session as the file now holds it, written or not


class _Facts:
    price = (1.0, 2.0, 0.5)
    model_label = "test model"
    context_window = 1000


def test_token_account_settles_a_turn_and_adds_what_the_stream_missed():
    """A turn's calls counted from its checkpoints are not counted twice when the turn ends,
    a call the history saw but the stream never reported joins the ledger, and the
    snapshot shows the session's totals at the call's price."""
    disk, meta = SessionMeta(id="s1", user_id="tester"), SessionMeta(id="s1", user_id="tester")
    disk.counted = {"through": None, "turns": 0}
    account = TokenAccount(_Store(disk), _Facts())
    account.lock_taken()
    account.begin_turn()
    asked = HumanMessage("hi", id="h1")
    answer = AIMessage("hello", id="a1", usage_metadata={
        "input_tokens": 100, "output_tokens": 10, "total_tokens": 110})
    account.settle(meta, [asked, answer])
    assert account.turn_spent == (100, 10)
    account.finish_turn(meta, 0, 0)  # the usage event never got out
    assert [(c.input, c.output) for c in account.ledger.calls] == [(100, 10)]
    assert (meta.turns, meta.input_tokens, meta.output_tokens) == (1, 100, 10)
    snap = account.snapshot(meta)
    assert (snap.session_in, snap.session_out, snap.context_window) == (100, 10, 1000)
    assert snap.cost_usd == (100 * 1.0 + 10 * 2.0) / 1e6
