"""The loaded agents, and a session's grants of them.

`AgentRegistry` is one load, never changed: a reload makes a new one (with a higher
`version`), so a running call keeps the agent it started with. `AgentPolicy` is a session's
`enabled_agents` / `disabled_agents`, kept as Birdie 0.15.1 keeps them: enabling takes a name
off the disabled list and onto the enabled one, disabling the other way round.
"""

from __future__ import annotations

import difflib
import itertools

from birdie_tui.agent_files.models import AgentDef, AgentLoad, AgentProblem

_versions = itertools.count(1)


class AgentRegistry:
    """The agents of one load by name (first definition wins), its problems and notes."""

    def __init__(self, load: AgentLoad):
        self._agents: dict[str, AgentDef] = {}
        for agent in load.agents:
            self._agents.setdefault(agent.name, agent)
        self.problems: list[AgentProblem] = list(load.problems)
        self.notes: list[str] = list(load.notes)
        self.version: int = next(_versions)

    def agents(self) -> list[AgentDef]:
        return list(self._agents.values())

    def get(self, name: str) -> AgentDef | None:
        return self._agents.get(name)

    def names(self) -> list[str]:
        return list(self._agents)

    def resolve(self, text: str) -> str | None:
        """The agent `text` names: its exact name, else the one name equal to it in any case,
        else the one name it begins (any case); None when none or several fit. (Birdie 0.15.1
        takes exact names only and suggests a near one: `suggest`.)"""
        if text in self._agents:
            return text
        wanted = text.strip().lower()
        if not wanted:
            return None
        same = [n for n in self._agents if n.lower() == wanted]
        if len(same) == 1:
            return same[0]
        if same:
            return None
        begun = [n for n in self._agents if n.lower().startswith(wanted)]
        return begun[0] if len(begun) == 1 else None

    def suggest(self, text: str) -> str | None:
        """A near name for a miss ("Did you mean ...?"), as Birdie's `_resolve_agent_name`
        picks it (difflib, cutoff 0.5)."""
        close = difflib.get_close_matches(text, list(self._agents), n=1, cutoff=0.5)
        return close[0] if close else None


class AgentPolicy:
    """A session's grants: an agent is on when (enabled by default or enabled) and not
    disabled."""

    def __init__(self, enabled: list[str] | None = None, disabled: list[str] | None = None):
        self._on: list[str] = list(enabled or [])
        self._off: list[str] = list(disabled or [])

    def is_enabled(self, agent: AgentDef) -> bool:
        return (agent.enabled_by_default or agent.name in self._on) and \
            agent.name not in self._off

    def enable(self, name: str) -> None:
        if name not in self._on:
            self._on.append(name)
        self._off = [n for n in self._off if n != name]

    def disable(self, name: str) -> None:
        if name not in self._off:
            self._off.append(name)
        self._on = [n for n in self._on if n != name]

    @property
    def enabled_names(self) -> list[str]:
        return list(self._on)

    @property
    def disabled_names(self) -> list[str]:
        return list(self._off)
