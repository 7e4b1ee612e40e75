"""The loaded agents and a session's grants (stand-in until the format package lands)."""

from __future__ import annotations

import itertools

from birdie_tui.agent_files.models import AgentDef, AgentLoad

_versions = itertools.count(1)


class AgentRegistry:
    def __init__(self, load: AgentLoad):
        self._agents = {a.name: a for a in load.agents}
        self.problems = list(load.problems)
        self.version = next(_versions)

    def agents(self) -> list[AgentDef]:
        return list(self._agents.values())

    def get(self, name: str) -> AgentDef | None:
        return self._agents.get(name)

    def names(self) -> list[str]:
        return list(self._agents)

    def resolve(self, text: str) -> str | None:
        if text in self._agents:
            return text
        lower = {n.lower(): n for n in self._agents}
        if text.lower() in lower:
            return lower[text.lower()]
        hits = [n for n in self._agents if n.lower().startswith(text.lower())]
        return hits[0] if len(hits) == 1 else None


class AgentPolicy:
    def __init__(self, enabled: list[str] | None = None, disabled: list[str] | None = None):
        self._on = list(enabled or [])
        self._off = list(disabled or [])

    def is_enabled(self, agent: AgentDef) -> bool:
        return (agent.enabled_by_default or agent.name in self._on) and agent.name not in self._off

    def enable(self, name: str) -> None:
        self._off = [n for n in self._off if n != name]
        if name not in self._on:
            self._on.append(name)

    def disable(self, name: str) -> None:
        self._on = [n for n in self._on if n != name]
        if name not in self._off:
            self._off.append(name)

    @property
    def enabled_names(self) -> list[str]:
        return list(self._on)

    @property
    def disabled_names(self) -> list[str]:
        return list(self._off)
