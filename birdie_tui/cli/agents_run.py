"""`birdie-tui agents run NAME [--input k=v ...]`: one run of an agent now, headless, as the
scheduler runs its triggers (`schedules/runner.py`): a session of its own, titled and marked
as the run, its record in the run log (trigger "manual", key "<agent>:manual").

The output is `--print`'s (text, `json` with "run_id" added, `stream-json`). Exit statuses:
  0  the run is done
  1  the run failed (one line says why; the record and the session are kept)
  2  bad usage: an unknown agent (the line names those that exist), a bad `--input`
  3  a call was not run: it waits for approval (the run is pending; the line says how to
     answer it), or a rule refused it
  143, 129  stopped by SIGTERM / SIGHUP: the run is recorded cancelled, its session kept
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from birdie_tui.cli.headless import EXIT_APPROVAL_PENDING, EXIT_APPROVAL_REFUSED, EXIT_TURN_FAILED, \
    _emit, _fail, _guarded, _shown
from birdie_tui.cli.json_result import TurnSummary, stop_reason
from birdie_tui.cli.signals import cancel_on_signal
from birdie_tui.text import counted

if TYPE_CHECKING:
    from birdie_tui.agent_files.models import AgentDef
    from birdie_tui.events import TurnEvent
    from birdie_tui.schedules.models import RunRecord, Trigger


def run_command(args: argparse.Namespace) -> int:
    from birdie_tui.schedules.inputs import InputError, typed_inputs
    from birdie_tui.schedules.models import Trigger

    agent, problem = _find_agent(args.name, args.agents_dir or ())
    if agent is None:
        return _fail(problem)
    try:
        inputs = typed_inputs(agent, args.input)
    except InputError as exc:
        return _fail(str(exc))
    trigger = Trigger(key=f"{agent.name}:manual", kind="manual", agent=agent.name,
                      inputs=inputs, approval=args.approval)
    return _guarded(lambda: cancel_on_signal(_run(trigger, args)))


def _find_agent(name: str, given: list[Path] | tuple[Path, ...]
                ) -> tuple[AgentDef | None, str]:
    """The agent named `name` in the folders the engine reads (its case aside), or why not."""
    from birdie_tui.agent_files.loader import default_agent_dirs, load_agents
    from birdie_tui.store.paths import BirdiePaths

    load = load_agents(default_agent_dirs(BirdiePaths.from_env(), os.environ, Path.cwd(),
                                          given))
    exact = {agent.name: agent for agent in reversed(load.agents)}  # the first one wins
    found = exact.get(name) or next(
        (a for a in load.agents if a.name.lower() == name.lower()), None)
    if found is not None:
        return found, ""
    names = ", ".join(sorted(exact)) or "none"
    return None, (f"unknown agent {name!r}; the agent folders hold: {names} "
                  "(`birdie-tui agents check` shows them and their problems)")


@dataclass
class _Watch:
    """The run's events as `--print` writes them, and what its summary needs."""

    stream_json: bool
    summary: TurnSummary | None
    pending: list[dict[str, Any]] = field(default_factory=list)
    denied: list[str] = field(default_factory=list)

    def __call__(self, event: TurnEvent) -> None:
        if self.stream_json:
            _emit(event.to_dict())
        if self.summary is not None:
            self.summary.add(event)
        from birdie_tui.events import ApprovalDecided

        if isinstance(event, ApprovalDecided) and event.decision == "pending":
            self.pending.append({"id": event.id, "name": event.name, "args": event.args})
        elif isinstance(event, ApprovalDecided) and event.decision == "denied":
            self.denied.append(event.name)


async def _run(trigger: Trigger, args: argparse.Namespace) -> int:
    from birdie_tui.agent.options import EngineOptions
    from birdie_tui.schedules.runner import run_trigger
    from birdie_tui.store.database import resolve_database_url
    from birdie_tui.store.paths import BirdiePaths, default_user, validate_user
    from birdie_tui.store.run_log import open_run_log

    paths = BirdiePaths.from_env()
    user = validate_user(args.user or default_user())
    database_url = resolve_database_url(args.database_url, os.environ, paths)
    options = EngineOptions(user=user, skills_dirs=args.skills_dir, agents_dirs=args.agents_dir,
                            config_file=args.config, database_url=database_url)
    watch = _Watch(args.output_format == "stream-json",
                   TurnSummary("") if args.output_format == "json" else None)
    run_log = open_run_log(paths, user, database_url)
    try:
        record = await run_trigger(trigger, options=options, run_log=run_log, on_event=watch)
    finally:
        run_log.close()
    return _report(record, watch, args)


def _report(record: RunRecord, watch: _Watch, args: argparse.Namespace) -> int:
    from birdie_tui.resume import resume_command
    from birdie_tui.secrets import scrub

    code = {"done": 0, "pending": EXIT_APPROVAL_PENDING}.get(record.status, EXIT_TURN_FAILED)
    code = EXIT_APPROVAL_REFUSED if code == 0 and watch.denied else code
    error = record.error if record.status not in ("done", "pending") else None
    if watch.summary is not None:
        watch.summary.session_id = record.session_id or ""
        _emit({**watch.summary.result(
            reply=record.answer or "", error=error, code=code, cost=record.cost,
            pending=watch.pending,
            stop_reason=stop_reason(error=error, waiting=bool(watch.pending),
                                    refused=bool(watch.denied), limited=watch.summary.limited)),
            "run_id": record.run_id})
    elif not watch.stream_json and record.answer:
        reply = _shown(scrub(record.answer), sys.stdout)
        sys.stdout.write(reply if reply.endswith("\n") else reply + "\n")
        sys.stdout.flush()
    if error is not None:
        return _fail(error, EXIT_TURN_FAILED)
    # A URL from the command line is given again; one from the environment is found again.
    again = resume_command(record.session_id or "", user=args.user,
                           database_url=args.database_url)
    if watch.pending:
        names = ", ".join(dict.fromkeys(p["name"] for p in watch.pending))
        _fail(f"not run: {names} (the run waits for approval: {counted(len(watch.pending), 'call')}"
              f"); answer with: {again} --print --approve all   (or --deny all; or open "
              "the session in the TUI)")
    elif watch.denied:
        _fail(f"not run: {', '.join(dict.fromkeys(watch.denied))} (denied by a rule)")
    if args.output_format == "text":
        print(f"birdie-tui: run {record.run_id} {record.status}: {again}", file=sys.stderr)
    return code
