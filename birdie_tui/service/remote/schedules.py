"""The door's side of agents that run on their own, over a LangGraph server: its cron jobs.

A mixin of `RemoteBirdie` (see `protocol.py` for the contract). The triggers are the jobs
`agents start --server` made (`crons.py`), the runs the threads those jobs started; the
scheduler is the server itself while it has any.
"""

from __future__ import annotations

from typing import Any

from birdie_tui.service.remote.crons import (birdie_jobs, job_trigger, run_record, run_threads,
                                             when)
from birdie_tui.service.rows import RunRecord, TriggerRow

SERVER_HOLDER = "server"


class RemoteSchedules:
    """`scheduled_runs`, `trigger_rows`, `scheduler_holder` over a LangGraph server."""

    wire: Any

    def scheduled_runs(self, agent: str | None = None, limit: int = 100) -> list[RunRecord]:
        """The runs the server's jobs started, newest first (each a thread: a session)."""
        if self.wire is None:
            return []
        client, host = self.wire.sync, self.wire.host
        threads = self.wire.call_sync(lambda: run_threads(client, agent, limit))
        return [run_record(t, host) for t in threads]

    def trigger_rows(self) -> list[TriggerRow]:
        """One row per job: its trigger, its next run on the server, its last run."""
        if self.wire is None:
            return []
        client = self.wire.sync
        jobs = self.wire.call_sync(lambda: birdie_jobs(client))
        last: dict[str, RunRecord] = {}
        for run in self.scheduled_runs(limit=100) if jobs else ():
            last.setdefault(run.trigger_key, run)
        rows = []
        for job in jobs:
            trigger = job_trigger(job)
            rows.append(TriggerRow(trigger=trigger, next_fire=when(job.get("next_run_date")),
                                   last=last.get(trigger.key)))
        return rows

    def scheduler_holder(self) -> str | None:
        """"server" while the server has Birdie's jobs (it runs them itself)."""
        if self.wire is None:
            return None
        client = self.wire.sync
        return SERVER_HOLDER if self.wire.call_sync(lambda: birdie_jobs(client)) else None
