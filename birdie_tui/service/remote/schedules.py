"""The door's side of agents that run on their own, over a LangGraph server: its cron jobs.

A mixin of `RemoteBirdie` (see `protocol.py` for the contract).
"""

from __future__ import annotations

from birdie_tui.service.rows import RunRecord, TriggerRow


class RemoteSchedules:
    """`scheduled_runs`, `trigger_rows`, `scheduler_holder` over a LangGraph server."""

    def scheduled_runs(self, agent: str | None = None, limit: int = 100) -> list[RunRecord]:
        return []

    def trigger_rows(self) -> list[TriggerRow]:
        return []

    def scheduler_holder(self) -> str | None:
        return None
