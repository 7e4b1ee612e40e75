"""`birdie-tui agents check [DIR ...] [--json]`: read agent folders and report every agent,
its triggers, the settings' schedules (without DIR) and every problem, as `skills check` does
for skills (exit 1 when a file has a problem). `agents logs` is `cli/agent_logs.py`.

Reads the files only (`birdie_tui.agent_files`, no engine, no model): safe on any folder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from birdie_tui.screen_text import one_line
from birdie_tui.text import counted

if TYPE_CHECKING:
    from birdie_tui.agent_files.models import AgentParam
    from birdie_tui.schedules.models import Trigger


def agents_command(args: argparse.Namespace) -> int:
    """The `agents` subcommand: `check`, `logs`, `run` (`cli/agents_run.py`, here only),
    `start` (`cli/agents_start.py`); `start`, `stop`, `logs` with a server."""
    if args.action == "check":
        return check(args.dirs, as_json=args.json)
    if args.action == "run":
        from birdie_tui.cli.agents_run import run_command

        return run_command(args)
    from birdie_tui.cli.agents_server import server_command, server_url

    url = server_url(args)
    if url:
        return server_command(args, url)
    if args.action == "logs":
        from birdie_tui.cli.agent_logs import logs_command

        return logs_command(args)
    if args.action == "start":
        from birdie_tui.cli.agents_start import start_command

        return start_command(args)
    print("birdie-tui: agents stop needs --server URL (a local `agents start` stops with "
          "SIGTERM or Ctrl+C)", file=sys.stderr)
    return 2


def check(dirs: list[Path], *, as_json: bool) -> int:
    from birdie_tui.agent_files.loader import default_agent_dirs, load_agents
    from birdie_tui.schedules.loading import gather_triggers
    from birdie_tui.store.paths import BirdiePaths

    paths = BirdiePaths.from_env()
    folders = [(d, "dir") for d in dirs] if dirs else default_agent_dirs(
        paths, os.environ, Path.cwd())
    missing = [str(d) for d in dirs if not d.is_dir()]
    load = load_agents(folders)
    # Settings' schedules belong to the default check; `agents check DIR` is about DIR.
    found = gather_triggers(load, None if dirs else paths.settings_file)
    problems = found.problems
    schedules = [t for t in found.triggers if t.agent is None]
    errors = [p.to_dict() for p in problems] + [
        {"path": d, "line": None, "message": "agents folder does not exist or is not a folder"}
        for d in missing]
    if as_json:
        print(json.dumps({"agents": [a.to_dict() for a in load.agents],
                          "schedules": [t.to_dict() for t in schedules], "errors": errors,
                          "notes": load.notes}, indent=2, default=str))
        return 1 if errors else 0
    for agent in load.agents:
        state = "on" if agent.enabled_by_default else "off"
        model = ":".join(p for p in (agent.vendor, agent.model) if p) or "-"
        skills = ", ".join((*agent.allowed_skills, *agent.tools)) or "-"
        print(one_line(f"ok    {agent.name:<18} {agent.format:<8} default {state:<3}  "
                       f"inputs: {_params(agent.inputs)}  outputs: {_params(agent.outputs)}  "
                       f"model: {model}  skills: {skills}  ({agent.source})"))
        for trigger in agent.triggers:
            print(_trigger_line(trigger))
    for trigger in schedules:
        print(_trigger_line(trigger, schedule=True))
    for note in load.notes:
        print(one_line(f"note  {note}"))
    for problem in problems:
        print(one_line(f"ERROR {problem}"))
    for folder in missing:
        print(one_line(f"ERROR {folder}: agents folder does not exist or is not a folder"))
    triggers = sum(len(a.triggers) for a in load.agents) + len(schedules)
    shown = f", {counted(triggers, 'trigger')}" if triggers else ""
    print(f"{counted(len(load.agents), 'agent')}{shown}, {counted(len(errors), 'error')}")
    return 1 if errors else 0


def _trigger_line(trigger: Trigger, *, schedule: bool = False) -> str:
    """`      ↳ digest:every  every 30m  approval: read-only  input: text` under its agent;
    a settings schedule on its own `ok` line."""
    lead = f"ok    {trigger.key:<18}" if schedule else f"      ↳ {trigger.key:<16}"
    extra = f"  allow: {', '.join(trigger.allow)}" if trigger.allow else ""
    given = f"  input: {', '.join(trigger.inputs)}" if trigger.inputs else ""
    where = f"  ({trigger.path.name})" if schedule and trigger.path else ""
    return one_line(f"{lead} {trigger.describe()}  approval: {trigger.approval}{extra}"
                    f"{given}{where}")


def _params(params: tuple[AgentParam, ...]) -> str:
    shown = [f"{p.name} ({p.type}{'' if p.required else ', optional'})" for p in params]
    return ", ".join(shown) or "-"
