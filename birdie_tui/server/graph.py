"""The `birdie` graph a LangGraph server serves: the local agent's own nodes, each given an
`AgentContext` built for the run from the server's runtime and the thread's grants.

A thread is a session. What the local engine keeps in the session JSON (skill and sub-agent
grants, saved approvals, the approval mode) the client keeps in the thread's metadata under `birdie`; the
server passes thread metadata to a run as `config["metadata"]`, so every node reads the grants
in force when the run started. No checkpointer here: the server brings its own.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from birdie_tui.agent.approvals import session_policy
from birdie_tui.agent.builder import agent_context
from birdie_tui.agent.graph import AgentContext, build_graph
from birdie_tui.modes import APPROVAL_MODES, LOADING_MODES, PERMISSIVENESS, ApprovalMode
from birdie_tui.server.agents import as_agent, run_agent, served_agents
from birdie_tui.server.runtime import BirdieRuntime, ashared_runtime
from birdie_tui.store.session_meta import str_list

METADATA_KEY = "birdie"  # the thread metadata the client writes
DEFAULT_MAX_TOOL_CALLS = 40  # per turn, as the CLI's default


def capped_mode(requested: Any, default: ApprovalMode, ceiling: ApprovalMode) -> ApprovalMode:
    """The thread's mode (`default` when it names none), never more permissive than the
    operator's `ceiling`: the server's policy is one a client cannot raise."""
    mode: ApprovalMode = requested if requested in APPROVAL_MODES else default
    return min(mode, ceiling, key=PERMISSIVENESS.index)


def thread_grants(config: RunnableConfig | None) -> dict[str, Any]:
    """The thread's `birdie` metadata (empty when absent or not a dict)."""
    metadata = (config or {}).get("metadata") or {}
    grants = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    return grants if isinstance(grants, dict) else {}


def _count(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else default


async def run_context(config: RunnableConfig | None, rt: BirdieRuntime | None = None
                      ) -> AgentContext:
    """What the agent's nodes get for this run: the server's model, skills and settings, the
    thread's grants, rules and mode (unknown or malformed keys fall back to the server's
    settings)."""
    rt = rt or await ashared_runtime()
    grants = thread_grants(config)
    settings = rt.settings
    loading = grants.get("skill_loading")
    loading = loading if loading in LOADING_MODES else settings.skill_loading
    approvals = session_policy(
        mode=capped_mode(grants.get("approval_mode"), settings.approval_mode,
                         rt.approval_ceiling),
        saved=grants, settings_rules=settings.permissions, workdir=rt.workdir)
    await rt.chat_model()
    context = agent_context(
        rt.agent,
        toolbox=rt.toolbox(str_list(grants.get("enabled_skills")),
                           str_list(grants.get("disabled_skills")), loading=loading,
                           decay_turns=settings.skill_decay_turns),
        memory=rt.memory_notes(),
        approvals=approvals,
        max_tool_calls=_count(grants.get("max_tool_calls"), DEFAULT_MAX_TOOL_CALLS),
        loading=loading,
        decay_turns=settings.skill_decay_turns,
        max_loaded=settings.skill_max_loaded,
        wire_events=True,
        workdir=rt.workdir,
    )
    context.agents = served_agents(rt, config, grants)
    name = run_agent(grants)  # a scheduled run's thread: the agent its cron job names
    return await as_agent(rt, context, name) if name else context


def build_server_graph(checkpointer: Any = None) -> Any:
    """The agent graph (the local topology, `agent.graph.build_graph`) with nodes that build
    their run's context from the thread (the node names are the local ones: a client reads
    `agent` and `tools` updates as the engine does)."""
    return build_graph(checkpointer, context_for=run_context, name="birdie")


_compiled: Any = None


def make_graph(config: RunnableConfig | None = None) -> Any:
    """The server's graph factory (`langgraph.json`): compiled once, without a checkpointer
    (the server copies it with its own for each run)."""
    global _compiled
    if _compiled is None:
        _compiled = build_server_graph()
    return _compiled


__all__ = ["METADATA_KEY", "build_server_graph", "capped_mode", "make_graph", "run_context", "thread_grants"]
