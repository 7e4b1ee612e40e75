"""`birdie-tui agents start|stop|logs --server URL`: the triggers as the LangGraph server's own
cron jobs, so they run with no local process (`service/remote/crons.py` makes and reads them).

`start` reads the triggers as a local `agents start` would (this machine's agent folders and
settings), makes each one the server can run a job, prints what it created, kept, replaced,
deleted or refused, and exits; `stop` deletes Birdie's jobs; `logs` lists them and the runs'
threads. A trigger file with a problem changes nothing on the server: a typo must not delete
a job that works.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from birdie_tui.screen_text import one_line
from birdie_tui.text import counted

if TYPE_CHECKING:
    from birdie_tui.schedules.loading import TriggerLoad
    from birdie_tui.schedules.models import Trigger
    from birdie_tui.service.remote.client import Wire
    from birdie_tui.service.remote.crons import JobSpec, SyncReport

SERVER_KEY_ENV = "BIRDIE_SERVER_API_KEY"


def server_url(args: argparse.Namespace) -> str | None:
    """`--server`, else $BIRDIE_SERVER (as every other command reads it)."""
    url = getattr(args, "server", None) or os.environ.get("BIRDIE_SERVER", "")
    return url.strip() or None


def server_command(args: argparse.Namespace, url: str) -> int:
    """`agents start|stop|logs` against the server at `url`; a server that cannot be reached
    or refuses is one line and exit 2."""
    from birdie_tui.secrets import remember
    from birdie_tui.service.protocol import BirdieError
    from birdie_tui.service.remote.client import Wire

    key = (os.environ.get(SERVER_KEY_ENV) or "").strip() or None
    remember(key)  # masked wherever text leaves the app
    wire: Wire | None = None
    try:
        wire = Wire(url, api_key=key)
        if args.action == "start":
            return start(wire)
        if args.action == "stop":
            return stop(wire)
        return logs(wire, getattr(args, "name", None), as_json=getattr(args, "json", False))
    except BirdieError as exc:
        print(one_line(f"birdie-tui: {exc}"), file=sys.stderr)
        return 2
    finally:
        if wire is not None:
            asyncio.run(wire.aclose())


def start(wire: Wire) -> int:
    """Sync the jobs with the triggers; exit 1 when a trigger was refused or a file is bad."""
    from birdie_tui.schedules.loading import load_triggers
    from birdie_tui.service.remote.crons import SyncReport, sync_jobs
    from birdie_tui.store.paths import BirdiePaths

    load = load_triggers(BirdiePaths.from_env(), os.environ, Path.cwd())
    for problem in load.problems:
        print(one_line(f"ERROR {problem}"))
    if load.problems:
        print(f"nothing was changed on {wire.shown}: fix {counted(len(load.problems), 'problem')}"
              " first")
        return 1
    report = SyncReport()
    specs = job_specs(load, server_agents(wire), report)
    wire.call_sync(lambda: sync_jobs(wire.sync, specs, report))
    print_report(report, specs, wire.shown)
    return 1 if report.refused else 0


def server_agents(wire: Wire) -> set[str]:
    """The names of the agent files the server has (its catalog)."""
    from birdie_tui.service.remote.catalog import catalog_of
    from birdie_tui.service.remote.client import INFO_GRAPH

    output = wire.call_sync(lambda: wire.sync.runs.wait(None, INFO_GRAPH, input={}))
    data = output.get("catalog") if isinstance(output, dict) else None
    if not isinstance(data, dict):
        raise wire.error(RuntimeError(f"the server's {INFO_GRAPH} graph gave no catalog (is "
                                      "it a Birdie server?)"))
    return {row.name for row in catalog_of(data).agents}


def job_specs(load: TriggerLoad, on_server: set[str], report: SyncReport) -> list[JobSpec]:
    """A job per trigger the server can run; the others in `report.refused` with why."""
    from birdie_tui.schedules.message import run_prompt
    from birdie_tui.service.remote.crons import Refused, job_spec

    specs = []
    for trigger in load.triggers:
        agent = load.agents.get(trigger.agent) if trigger.agent else None
        try:
            if trigger.agent and trigger.agent not in on_server:
                raise Refused(f"the server has no agent {trigger.agent!r} in its agent "
                              "folders: put the file there too")
            specs.append(job_spec(trigger, run_prompt(trigger, agent)))
        except Refused as exc:
            report.refused.append((trigger, str(exc)))
    return specs


def _where(trigger: Trigger) -> str:
    if trigger.path is None:
        return ""
    return f" ({trigger.path}{f':{trigger.line}' if trigger.line else ''})"


def print_report(report: SyncReport, specs: list[JobSpec], shown: str) -> None:
    by_key = {s.trigger.key: s for s in specs}
    for outcome, keys in (("created", report.created), ("replaced", report.replaced),
                          ("kept", report.kept)):
        for key in keys:
            spec = by_key[key]
            print(one_line(f"{outcome:<9}{key:<24} {spec.trigger.describe()} → cron "
                           f"{spec.schedule} ({spec.timezone})"))
    for key in report.deleted:
        print(one_line(f"{'deleted':<9}{key:<24} its trigger is gone"))
    for trigger, why in report.refused:
        print(one_line(f"{'refused':<9}{trigger.key:<24} {why}{_where(trigger)}"))
    print(f"{counted(len(specs), 'cron job')} on {shown}: {len(report.created)} created, "
          f"{len(report.replaced)} replaced, {len(report.kept)} kept, "
          f"{len(report.deleted)} deleted; {len(report.refused)} refused")


def stop(wire: Wire) -> int:
    """Delete every job Birdie made on the server (others are left alone)."""
    from birdie_tui.service.remote.crons import delete_jobs

    keys = wire.call_sync(lambda: delete_jobs(wire.sync))
    for key in keys:
        print(one_line(f"deleted  {key}"))
    print(f"{counted(len(keys), 'cron job')} deleted on {wire.shown}")
    return 0


def logs(wire: Wire, name: str | None, *, as_json: bool) -> int:
    """The jobs (trigger, schedule, next run) and the runs' threads, newest first."""
    from birdie_tui.service.remote.crons import birdie_jobs, run_record, run_threads

    jobs = [j for j in wire.call_sync(lambda: birdie_jobs(wire.sync))
            if name is None or name in (j["metadata"].get("birdie_agent"),
                                        j["metadata"].get("birdie_trigger"))]
    runs = [run_record(t, wire.host)
            for t in wire.call_sync(lambda: run_threads(wire.sync, name, 100))]
    rows = [job_row(j) for j in jobs]
    if as_json:
        print(json.dumps({"server": wire.shown, "jobs": rows,
                          "runs": [r.to_dict() for r in runs]}, indent=2))
        return 0
    print(f"{counted(len(rows), 'cron job')} on {wire.shown}")
    for row in rows:
        print(one_line(f"  {row['trigger']:<24} {row['describe']:<20} cron {row['schedule']} "
                       f"({row['timezone']})  next {row['next_run'] or '-'}"))
    print(counted(len(runs), "run"))
    for run in runs:
        answer = one_line(run.answer or run.error or "")[:60]
        print(one_line(f"  {run.started_at:%Y-%m-%d %H:%M:%S}  {run.status:<9} "
                       f"{run.trigger_key:<24} {run.session_id}  {answer}"))
    return 0


def job_row(job: dict[str, Any]) -> dict[str, Any]:
    from birdie_tui.service.remote.crons import job_trigger, when

    trigger = job_trigger(job)
    next_run = when(job.get("next_run_date"))
    return {"trigger": trigger.key, "agent": trigger.agent, "describe": trigger.describe(),
            "schedule": job.get("schedule"), "timezone": job.get("timezone") or "UTC",
            "next_run": next_run.isoformat() if next_run else None,
            "cron_id": str(job.get("cron_id"))}
