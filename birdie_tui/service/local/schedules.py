"""The door's side of agents that run on their own: the run log, the triggers and who runs
them, over the local store.

A mixin of `LocalBirdie` (see `protocol.py` for the contract).
"""

from __future__ import annotations

from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.rows import RunRecord, TriggerRow


class LocalSchedules(OnDesk):
    """`scheduled_runs`, `trigger_rows`, `scheduler_holder` over the local store."""

    def scheduled_runs(self, agent: str | None = None, limit: int = 100) -> list[RunRecord]:
        return []

    def trigger_rows(self) -> list[TriggerRow]:
        return []

    def scheduler_holder(self) -> str | None:
        return None
