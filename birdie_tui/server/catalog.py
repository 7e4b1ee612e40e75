"""What a remote front end lists: the server's skills, sub-agents, tools, MCP servers, model and
settings, as the JSON dicts of the front door's rows (`birdie_tui.catalog`), for a given set
of grants.

The rows are built by the same builders the local service uses (`birdie_tui.catalog`), over
a small view of the runtime that answers as the engine does.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from birdie_tui import version
from birdie_tui.catalog import (BrokenAgentFile, MemoryNote, ModelFacts, SettingsRow, ToolRow,
                                agent_row, broken_files, mcp_row, skill_rows)
from birdie_tui.server.agents import agent_policy
from birdie_tui.server.runtime import BirdieRuntime
from birdie_tui.skills.policy import SkillPolicy


class _EngineView:
    """The engine's answers the catalog builders need, from the runtime and the given grants."""

    def __init__(self, rt: BirdieRuntime, policy: SkillPolicy):
        self.registry = rt.registry
        self.broken_skills: dict[str, Any] = {}  # loaded once: no "last good version" here
        self._rt, self._policy = rt, policy

    def skills(self) -> list[Any]:
        return self.registry.skills()

    def is_enabled(self, skill: Any) -> bool:
        return self._policy.is_enabled(skill)

    def mcp_status(self) -> list[Any]:
        return self._rt.mcp.status(self.skills(), self.is_enabled)


async def build_catalog(rt: BirdieRuntime, enabled: list[str], disabled: list[str],
                        grants: dict[str, Any] | None = None) -> dict[str, Any]:
    """The catalog as plain JSON (see the `birdie_info` graph); the agent rows say what is on
    for a thread with these `grants` (its `enabled_agents` / `disabled_agents`)."""
    view = _EngineView(rt, SkillPolicy(enabled, disabled))
    policy, agents = agent_policy(grants or {}), rt.agent.agents
    settings = rt.settings
    box = rt.toolbox(enabled, disabled, loading=settings.skill_loading,
                     decay_turns=settings.skill_decay_turns)
    tools = [ToolRow(t.name, (t.description or "").splitlines()[0] if t.description else "")
             for t in await box.tools()]
    return {
        "skills": [asdict(row) for row in skill_rows(view)],
        "broken": [asdict(row) for row in broken_files(view)],
        "tools": [asdict(row) for row in tools],
        "agents": [asdict(agent_row(a, policy.is_enabled(a))) for a in agents.agents()],
        "broken_agents": [asdict(BrokenAgentFile(str(p.path), p.line, p.message))
                          for p in agents.problems],
        # After the tools: listing them starts the enabled MCP servers, whose state this says.
        "mcp": [asdict(mcp_row(s)) for s in view.mcp_status()],
        "model": asdict(ModelFacts(rt.model_label, rt.context_window, rt.price)),
        # The server's long-term memory, which every run's prompt carries (read-only remotely).
        "memory": [asdict(MemoryNote(e.id, e.content)) for e in rt.memory.entries()],
        "settings": asdict(SettingsRow(theme=settings.theme, tool_output=settings.tool_output,
                                       keymap=tuple(sorted(settings.keymap.items())),
                                       notify=settings.notify)),
        "server": {"birdie_tui_version": version(), "home": str(rt.paths.home),
                   "approval_ceiling": rt.approval_ceiling},
    }


__all__ = ["build_catalog"]
