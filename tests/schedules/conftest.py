"""What the run tests share: the real run log (sqlite) recording its saves, the agent tests'
skills and agents, and the engine options of a run on the offline model."""

from __future__ import annotations

import builtins
from datetime import datetime
from pathlib import Path

import pytest

from birdie_tui.agent.engine import EngineOptions
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.schedules.models import RunRecord, Trigger
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.protocols import RunLogProtocol
from birdie_tui.store.run_log import open_run_log

from ..agent.conftest import write_agents, write_skills


class RecordingLog:
    """The real run log (sqlite beside the sessions), every saved version kept in `saves`
    to see a record's steps."""

    def __init__(self, log: RunLogProtocol) -> None:
        self._log = log
        self.user = log.user
        self.saves: list[RunRecord] = []

    def save(self, record: RunRecord) -> None:
        self._log.save(record)
        self.saves.append(record)

    def get(self, run_id: str) -> RunRecord | None:
        return self._log.get(run_id)

    def for_session(self, session_id: str) -> RunRecord | None:
        return self._log.for_session(session_id)

    def list(self, agent: str | None = None, limit: int = 50) -> builtins.list[RunRecord]:
        return self._log.list(agent, limit)

    def last(self, trigger_key: str) -> RunRecord | None:
        return self._log.last(trigger_key)

    def claim(self, trigger_key: str, fire_time: datetime, owner: str) -> bool:
        return self._log.claim(trigger_key, fire_time, owner)

    def close(self) -> None:
        self._log.close()


@pytest.fixture
def run_log(isolated_home):
    log = RecordingLog(open_run_log(BirdiePaths.from_env(), "tester", None))
    yield log
    log.close()


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
