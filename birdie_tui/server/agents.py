"""Sub-agents on the served graph: the thread's enabled agent files are tools of its runs, and
a call runs the agent as a nested turn, as the local engine does (`agent.subagents`).

The child runs on a thread of its own under the parent's, `<thread>/agent/<name>-<hex>`, in
the server's own checkpointer (the one LangGraph hands the node in its config), with the local
topology (`agent.graph.build_graph`: the child's context is the runner's, not the thread's).
It is not a LangGraph subgraph of the run: a subgraph's interrupt would stop the parent's step
and several children of one step would share one checkpoint namespace. A served run has no one
to ask, so a child's call the thread's mode and rules leave open is refused with the runner's
note (`denied_answers`), as a local `--print` refuses it.

The grants are the thread's metadata `birdie` keys `enabled_agents` / `disabled_agents`, the
session file's keys locally.
"""

from __future__ import annotations

from typing import Any

from langgraph.constants import CONFIG_KEY_CHECKPOINTER

from birdie_tui.agent.approvals import ApprovalRequest
from birdie_tui.agent.session_state import DISABLED_AGENTS, ENABLED_AGENTS
from birdie_tui.agent.subagents import ChildSetup, SubAgents, denied_answers
from birdie_tui.agent_files.registry import AgentPolicy
from birdie_tui.server.runtime import BirdieRuntime
from birdie_tui.store.session_meta import str_list


def agent_policy(grants: dict[str, Any]) -> AgentPolicy:
    """The thread's sub-agent grants (its `birdie` metadata)."""
    return AgentPolicy(str_list(grants.get(ENABLED_AGENTS)), str_list(grants.get(DISABLED_AGENTS)))


def served_agents(rt: BirdieRuntime, config: Any, grants: dict[str, Any]) -> SubAgents | None:
    """The run's sub-agents (None when the server loaded no agent file)."""
    parts = rt.agent
    if not parts.agents.agents():
        return None
    configurable = (config or {}).get("configurable") or {}
    setup = ChildSetup(
        graph=rt.child_graph(configurable.get(CONFIG_KEY_CHECKPOINTER)), agents=parts.agents,
        model_for=parts.model_for,
        toolbox_for=lambda policy, child: parts.toolbox(lambda: policy, lambda: child),
        servers=parts.given, parallel=rt.settings.agent_parallel)
    return SubAgents(setup, enabled=agent_policy(grants).is_enabled,
                     thread=str(configurable.get("thread_id") or ""), ask=refuse_all)


async def refuse_all(pending: list[ApprovalRequest]) -> dict[str, dict[str, Any]]:
    """No approver on a server: every call left open is refused, saying why."""
    return denied_answers(pending, {})


__all__ = ["agent_policy", "refuse_all", "served_agents"]
