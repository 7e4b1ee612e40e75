"""A run log for the scheduler's in-process tests (until the store's lands on this branch)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from birdie_tui.schedules.models import RunRecord


class MemoryRunLog:
    user = "u"

    def __init__(self) -> None:
        self.records: dict[str, RunRecord] = {}
        self.claims: set[tuple[str, datetime]] = set()

    def save(self, record: RunRecord) -> None:
        self.records[record.run_id] = record

    def get(self, run_id: str) -> RunRecord | None:
        return self.records.get(run_id)

    def for_session(self, session_id: str) -> RunRecord | None:
        return next((r for r in self.records.values() if r.session_id == session_id), None)

    def list(self, agent: str | None = None, limit: int = 50) -> list[RunRecord]:
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


def run_log_for(tmp_path: Path) -> MemoryRunLog:
    return MemoryRunLog()
