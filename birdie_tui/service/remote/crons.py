"""Triggers as a LangGraph server's own cron jobs (`agents start|stop|logs --server URL`).

A `cron:` trigger becomes a stateless cron job with its schedule and zone; an `every:` trigger
one when its interval is a cron schedule exactly (`every_schedule`); a `watch:` trigger never
(the server cannot see this machine's files). Each job starts the `birdie` graph on a new
thread it keeps (`on_run_completed="keep"`): the thread is the run's session. The job's
metadata becomes the thread's: the flat `birdie_*` keys name the trigger and the agent, and
the `birdie` grants give the thread its title, the trigger's approval policy and the `run`
marker the served graph reads to run as the agent (`server/agents.py`, `as_agent`).

A job's `birdie_digest` fingerprints what it would do: syncing again keeps a job whose digest
is unchanged, replaces a changed one and deletes one whose trigger is gone; jobs without
Birdie's metadata are never touched.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from birdie_tui.schedules.models import (RUN_MODES, RunRecord, RunStatus, Trigger,
                                         format_interval)

GRAPH = "birdie"
RUN_MARK = ("birdie_run", "cron")  # on every job, and so on every thread a job made
TRIGGER_KEY, AGENT_KEY, DIGEST_KEY, SPEC_KEY = ("birdie_trigger", "birdie_agent",
                                                "birdie_digest", "birdie_spec")
PAGE = 200  # jobs and threads asked for at once (the server's search is paged)
# A thread's status on the server, as a run's.
STATUS: dict[str, RunStatus] = {"idle": "done", "busy": "running", "interrupted": "pending", "error": "failed"}
WATCH_REFUSAL = ("a watch trigger needs a local `agents start` (the server cannot see this "
                 "machine's files)")


class Refused(ValueError):
    """A trigger that cannot be a cron job on the server, and why (one line)."""


def every_schedule(seconds: float) -> str | None:
    """The cron schedule firing exactly every `seconds`, or None: whole minutes dividing an
    hour, whole hours dividing a day, or one day (a cron field cannot say any other)."""
    if seconds != int(seconds) or seconds <= 0:
        return None
    whole = int(seconds)
    minutes, hours = divmod(whole, 60), divmod(whole, 3600)
    if whole < 3600 and minutes[1] == 0 and minutes[0] and 60 % minutes[0] == 0:
        return "* * * * *" if minutes[0] == 1 else f"*/{minutes[0]} * * * *"
    if whole < 86400 and hours[1] == 0 and hours[0] and 24 % hours[0] == 0:
        return "0 * * * *" if hours[0] == 1 else f"0 */{hours[0]} * * *"
    return "0 0 * * *" if whole == 86400 else None


def local_zone() -> str:
    """This machine's IANA zone (a `cron:` without `tz:` means the machine's wall clock, as a
    local `agents start` reads it); UTC when it has no name."""
    try:
        import tzlocal

        return str(tzlocal.get_localzone_name() or "UTC")
    except Exception:  # noqa: BLE001 - an unnamed zone is UTC, never a crash
        return "UTC"


def job_schedule(trigger: Trigger, zone: Callable[[], str] = local_zone) -> tuple[str, str]:
    """(schedule, zone) of the trigger's job; `Refused` when it cannot have one."""
    if trigger.kind == "watch":
        raise Refused(WATCH_REFUSAL)
    if trigger.kind == "cron" and trigger.cron:
        return trigger.cron, trigger.tz or zone()
    if trigger.kind == "every" and trigger.every_s is not None:
        schedule = every_schedule(trigger.every_s)
        if schedule is None:
            raise Refused(f"every {format_interval(trigger.every_s)} is no cron schedule: on a "
                          "server use whole minutes dividing an hour (1m, 5m, 30m…), whole "
                          "hours dividing a day (1h, 6h…) or 1d")
        return schedule, "UTC"  # an interval has no wall-clock phase
    raise Refused(f"a {trigger.kind} trigger has no schedule")


@dataclass(frozen=True)
class JobSpec:
    """What one trigger's cron job is: sent as it is, compared by `digest`."""

    trigger: Trigger
    schedule: str
    timezone: str
    input: dict[str, Any]
    metadata: dict[str, Any]

    @property
    def digest(self) -> str:
        return str(self.metadata[DIGEST_KEY])


def job_spec(trigger: Trigger, message: str, zone: Callable[[], str] = local_zone) -> JobSpec:
    """The job for `trigger`, whose run sends `message` (an agent's rendered prompt, a
    schedule's prompt); `Refused` when it cannot be one."""
    schedule, tz = job_schedule(trigger, zone)
    grants: dict[str, Any] = {
        "title": trigger.title(), "approval_mode": RUN_MODES[trigger.approval],
        "run": {"trigger_key": trigger.key, "agent": trigger.agent,
                "trigger": trigger.describe(), "approval": trigger.approval}}
    if trigger.allow:
        grants["approval_rules"] = list(trigger.allow)
    spec = {key: trigger.to_dict()[key] for key in (
        "kind", "agent", "prompt", "every_s", "cron", "tz", "inputs", "approval", "allow",
        "path", "line")}
    metadata: dict[str, Any] = {RUN_MARK[0]: RUN_MARK[1], TRIGGER_KEY: trigger.key,
                                AGENT_KEY: trigger.agent, SPEC_KEY: spec, "birdie": grants}
    payload = {"input": {"messages": [{"type": "human", "content": message}]}}
    digest = hashlib.sha256(json.dumps([schedule, tz, payload, metadata], sort_keys=True,
                                       default=str).encode()).hexdigest()[:16]
    metadata[DIGEST_KEY] = digest
    return JobSpec(trigger, schedule, tz, payload["input"], metadata)


@dataclass
class SyncReport:
    """What a sync did, trigger keys per outcome (refusals with their reason)."""

    created: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    refused: list[tuple[Trigger, str]] = field(default_factory=list)


def birdie_jobs(client: Any) -> list[dict[str, Any]]:
    """The server's cron jobs that Birdie made (every page), oldest first."""
    jobs: list[dict[str, Any]] = []
    while True:
        page = client.crons.search(metadata=dict([RUN_MARK]), limit=PAGE, offset=len(jobs))
        jobs += page
        if len(page) < PAGE:
            break
    return [j for j in jobs if isinstance((j.get("metadata") or {}).get(TRIGGER_KEY), str)]


def sync_jobs(client: Any, specs: Sequence[JobSpec], report: SyncReport) -> SyncReport:
    """Make the server's Birdie jobs exactly `specs`: unchanged ones kept, changed ones
    replaced (the new one made before the old one goes), the rest deleted."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for job in birdie_jobs(client):
        by_key.setdefault(job["metadata"][TRIGGER_KEY], []).append(job)
    for spec in specs:
        old = by_key.pop(spec.trigger.key, [])
        same = [j for j in old if j["metadata"].get(DIGEST_KEY) == spec.digest]
        if same:
            report.kept.append(spec.trigger.key)
            old = [j for j in old if j is not same[0]]  # duplicates of a race: go
        else:
            create_job(client, spec)
            (report.replaced if old else report.created).append(spec.trigger.key)
        for job in old:
            client.crons.delete(job["cron_id"])
    for key, jobs in by_key.items():
        for job in jobs:
            client.crons.delete(job["cron_id"])
        report.deleted.append(key)
    return report


def create_job(client: Any, spec: JobSpec) -> dict[str, Any]:
    job: dict[str, Any] = client.crons.create(
        GRAPH, schedule=spec.schedule, timezone=spec.timezone, input=spec.input,
        metadata=spec.metadata, on_run_completed="keep")
    return job


def delete_jobs(client: Any) -> list[str]:
    """Delete every Birdie job on the server; their trigger keys."""
    keys = []
    for job in birdie_jobs(client):
        client.crons.delete(job["cron_id"])
        keys.append(job["metadata"][TRIGGER_KEY])
    return keys


def job_trigger(job: Mapping[str, Any]) -> Trigger:
    """The trigger a job was made from (its `birdie_spec`)."""
    meta = _dict(job.get("metadata"))
    spec = _dict(meta.get(SPEC_KEY))
    path = spec.get("path")
    return Trigger(
        key=str(meta.get(TRIGGER_KEY)), kind=spec.get("kind") or "cron",
        agent=spec.get("agent"), prompt=spec.get("prompt"), every_s=spec.get("every_s"),
        cron=spec.get("cron") or (None if spec.get("kind") == "every" else job.get("schedule")),
        tz=spec.get("tz"), inputs=dict(spec.get("inputs") or {}),
        approval=spec.get("approval") or "read-only", allow=tuple(spec.get("allow") or ()),
        path=Path(path) if path else None, line=spec.get("line"))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def when(value: Any) -> datetime | None:
    """A server's timestamp (ISO text or a datetime) as an aware datetime."""
    if isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def run_threads(client: Any, agent: str | None = None, limit: int = 100
                ) -> list[dict[str, Any]]:
    """The threads Birdie's jobs made (newest first), of `agent` when given."""
    metadata = dict([RUN_MARK]) | ({AGENT_KEY: agent} if agent else {})
    found: list[dict[str, Any]] = client.threads.search(
        metadata=metadata, limit=max(1, limit), sort_by="created_at", sort_order="desc")
    return found


def run_record(thread: Mapping[str, Any], host: str = "server") -> RunRecord:
    """A scheduled run's thread as a line of the run log: its status, start, end, usage and
    final answer (the thread is the run's session)."""
    meta = _dict(thread.get("metadata"))
    grants = _dict(meta.get("birdie"))
    run = _dict(grants.get("run"))
    status: RunStatus = STATUS.get(str(thread.get("status")), "running")
    started = when(thread.get("created_at")) or datetime.fromtimestamp(0).astimezone()
    messages = _dict(thread.get("values")).get("messages") or []
    ais = [m for m in messages if isinstance(m, dict) and m.get("type") == "ai"]
    usage = [m.get("usage_metadata") or {} for m in ais]
    answer = ais[-1].get("content") if ais and status == "done" else None
    return RunRecord(
        run_id=str(thread["thread_id"]), trigger_key=str(meta.get(TRIGGER_KEY) or ""),
        agent=meta.get(AGENT_KEY), trigger=str(run.get("trigger") or ""),
        user=str(grants.get("last_user") or "server"), status=status,
        started_at=started, session_id=str(thread["thread_id"]),
        finished_at=when(thread.get("updated_at")) if status in ("done", "failed") else None,
        input_tokens=sum(int(u.get("input_tokens") or 0) for u in usage),
        output_tokens=sum(int(u.get("output_tokens") or 0) for u in usage),
        error="the run failed on the server (its log says why)" if status == "failed" else None,
        answer=answer if isinstance(answer, str) else None, host=host)


__all__ = ["JobSpec", "Refused", "SyncReport", "birdie_jobs", "delete_jobs", "every_schedule",
           "job_schedule", "job_spec", "job_trigger", "local_zone", "run_record",
           "run_threads", "sync_jobs"]
