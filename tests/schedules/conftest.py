"""What the run tests share: a run log kept in memory (the contract's shape, until the
stores' own tests cover them), the agent tests' skills and agents, and the engine options of a
run on the offline model."""

from __future__ import annotations

import builtins
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from birdie_tui.agent.engine import EngineOptions
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.schedules.models import RunRecord, Trigger

from ..agent.conftest import write_agents, write_skills


class MemoryRunLog:
    """`RunLogProtocol` over a dict; every saved version kept, to see a record's steps."""

    def __init__(self, user: str = "tester") -> None:
        self.user = user
        self.records: dict[str, RunRecord] = {}
        self.saves: list[RunRecord] = []
        self.claims: set[tuple[str, datetime]] = set()

    def save(self, record: RunRecord) -> None:
        self.records[record.run_id] = replace(record)
        self.saves.append(record)

    def get(self, run_id: str) -> RunRecord | None:
        return self.records.get(run_id)

    def for_session(self, session_id: str) -> RunRecord | None:
        return next((r for r in self.records.values() if r.session_id == session_id), None)

    def list(self, agent: str | None = None, limit: int = 50) -> builtins.list[RunRecord]:
        rows = sorted(self.records.values(), key=lambda r: r.started_at, reverse=True)
        return [r for r in rows if agent is None or r.agent == agent][:limit]

    def last(self, trigger_key: str) -> RunRecord | None:
        return next((r for r in self.list(limit=10**6) if r.trigger_key == trigger_key), None)

    def claim(self, trigger_key: str, fire_time: datetime, owner: str) -> bool:
        if (trigger_key, fire_time) in self.claims:
            return False
        self.claims.add((trigger_key, fire_time))
        return True

    def close(self) -> None:
        pass


@pytest.fixture
def run_log() -> MemoryRunLog:
    return MemoryRunLog()


@pytest.fixture
def folders(tmp_path) -> tuple[Path, Path]:
    """(skills, agents) folders: the agent tests' skills and agent files."""
    return write_skills(tmp_path / "skills"), write_agents(tmp_path / "agents")


@pytest.fixture
def options(isolated_home, folders) -> EngineOptions:
    skills, agents = folders
    return EngineOptions(skills_dirs=[skills], agents_dirs=[agents],
                         provider=ProviderConfig(vendor="offline"), tool_timeout=10)


def agent_trigger(agent: str, kind: str = "every", **fields) -> Trigger:
    """A trigger as an agent file's `every: 1s` gives it."""
    base = {"every_s": 1.0} if kind == "every" else {}
    return Trigger(key=f"{agent}:{kind}", kind=kind, agent=agent, **{**base, **fields})
