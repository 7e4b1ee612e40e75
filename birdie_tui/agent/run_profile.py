"""A session that is a run of an agent (`extra["run"]`, schedules/runner.py) runs every turn
as that agent's child would: the agent's system prompt, its model, its repeated-call guard,
and no sub-agents of its own. Its skills are the session's grants (set when the run opened)
and its approval rules are the session's (`agent/approvals.py`, `session_policy`).

Read at each turn, not only by the runner, so that a run left pending and answered later (the
TUI's dialog on that session, or `--print --approve`) goes on as the agent it ran.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from birdie_tui.agent.graph import AgentContext
from birdie_tui.agent.subagents import ModelFor
from birdie_tui.agent_files.models import AgentDef
from birdie_tui.agent_files.registry import AgentRegistry
from birdie_tui.schedules.models import run_mark
from birdie_tui.store import SessionMeta


def run_agent(session: SessionMeta | None, agents: AgentRegistry) -> AgentDef | None:
    """The agent a run session runs as; None for any other session (or a settings schedule,
    which runs with the session's defaults)."""
    mark: Mapping[str, Any] | None = run_mark(session.extra) if session is not None else None
    name = mark.get("agent") if mark is not None else None
    return agents.get(name) if isinstance(name, str) else None


async def run_context(context: AgentContext, agent: AgentDef | None,
                      model_for: ModelFor) -> AgentContext:
    """`context` as the agent's child gets it (`agent/subagents.py`, `_ChildRun._context`)."""
    if agent is None:
        return context
    model = await model_for(agent)
    return dataclasses.replace(
        context, model=model,
        context_window=context.context_window if model is context.model else None,
        custom_prompt=agent.system_prompt or context.custom_prompt,
        max_repeats=agent.max_tool_repetitions, agents=None)


__all__ = ["run_agent", "run_context"]
