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

A thread whose `birdie` metadata has `run` = {"trigger_key", "agent", "trigger"} is a
scheduled run (a cron job of `agents start --server` made it): every run on it, the cron's
first and any that answers its approvals later, is set up as that agent (`as_agent`): its
allowed skills only, its system prompt, its model, as a sub-agent's child is.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from langgraph.constants import CONFIG_KEY_CHECKPOINTER

from birdie_tui.agent.approvals import ApprovalRequest
from birdie_tui.agent.session_state import DISABLED_AGENTS, ENABLED_AGENTS
from birdie_tui.agent.graph import AgentContext
from birdie_tui.agent.subagents import ChildSetup, SubAgents, child_policy, denied_answers
from birdie_tui.agent_files.registry import AgentPolicy
from birdie_tui.modes import LoadingMode
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


RUN_KEY = "run"  # the `birdie` metadata of a scheduled run's thread


def run_agent(grants: dict[str, Any]) -> str | None:
    """The agent a scheduled run's thread runs as (None: an ordinary thread, or a settings
    schedule's plain prompt)."""
    run = grants.get(RUN_KEY)
    name = run.get("agent") if isinstance(run, dict) else None
    return name if isinstance(name, str) and name else None


async def as_agent(rt: BirdieRuntime, context: AgentContext, name: str) -> AgentContext:
    """`context` set up as the agent `name` of the server's agent folders (a file the server
    does not have is the run's error, said in one line)."""
    agent = rt.agent.agents.get(name)
    if agent is None:
        raise ValueError(f"this scheduled run's agent {name!r} is not in the server's agent "
                         "folders")
    box = context.toolbox
    policy = child_policy(agent, [s.name for s in rt.registry.skills()],
                          lambda tool: (s.name if (s := box.skill_for_tool(tool)) else None))
    toolbox = rt.toolbox(policy.enabled_names, policy.disabled_names,
                         loading=cast(LoadingMode, context.loading),
                         decay_turns=context.decay_turns)
    model = await rt.agent.model_for(agent)
    return dataclasses.replace(
        context, model=model, toolbox=toolbox, agents=None,
        context_window=context.context_window if model is context.model else None,
        custom_prompt=agent.system_prompt or context.custom_prompt,
        max_repeats=agent.max_tool_repetitions)


async def refuse_all(pending: list[ApprovalRequest]) -> dict[str, dict[str, Any]]:
    """No approver on a server: every call left open is refused, saying why."""
    return denied_answers(pending, {})


__all__ = ["RUN_KEY", "agent_policy", "as_agent", "refuse_all", "run_agent", "served_agents"]
