"""A run's message, wherever it runs (a local run, a server's cron job): the agent's rendered
prompt (its inputs from the trigger) or the schedule's prompt; a watch run's changed paths
listed after it. Light: no engine, so `agents start --server` builds jobs with it too."""

from __future__ import annotations

from collections.abc import Sequence

from birdie_tui.agent_files.models import AgentDef
from birdie_tui.agent_files.render import render_prompt
from birdie_tui.schedules.models import Trigger

__all__ = ["run_prompt"]


def run_prompt(trigger: Trigger, agent: AgentDef | None, changed_paths: Sequence[str] = ()
               ) -> str:
    """The run's message (see the module's docstring)."""
    text = render_prompt(agent, trigger.inputs) if agent is not None else ""
    if not text.strip():  # a Markdown agent given no `task`, or a schedule's plain prompt
        text = trigger.prompt or f"Run now ({trigger.describe()})."
    if changed_paths:
        text += "\n\nChanged paths:\n" + "\n".join(f"- {path}" for path in changed_paths)
    return text
