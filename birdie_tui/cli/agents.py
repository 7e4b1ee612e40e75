"""`birdie-tui agents check [DIR ...] [--json]`: read agent folders and report every agent
and every problem, as `skills check` does for skills (exit 1 when a file has a problem).

Reads the files only (`birdie_tui.agent_files`, no engine, no model): safe on any folder.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from birdie_tui.screen_text import one_line
from birdie_tui.text import counted

if TYPE_CHECKING:
    from birdie_tui.agent_files.models import AgentParam


def agents_command(args: argparse.Namespace) -> int:
    """The `agents` subcommand: `check`, `run` (`cli/agents_run.py`)."""
    if args.action == "run":
        from birdie_tui.cli.agents_run import run_command

        return run_command(args)
    return check(args.dirs, as_json=args.json)


def check(dirs: list[Path], *, as_json: bool) -> int:
    from birdie_tui.agent_files.loader import default_agent_dirs, load_agents
    from birdie_tui.store.paths import BirdiePaths

    folders = [(d, "dir") for d in dirs] if dirs else default_agent_dirs(
        BirdiePaths.from_env(), os.environ, Path.cwd())
    missing = [str(d) for d in dirs if not d.is_dir()]
    load = load_agents(folders)
    errors = [p.to_dict() for p in load.problems] + [
        {"path": d, "line": None, "message": "agents folder does not exist or is not a folder"}
        for d in missing]
    if as_json:
        print(json.dumps({"agents": [a.to_dict() for a in load.agents], "errors": errors,
                          "notes": load.notes}, indent=2))
        return 1 if errors else 0
    for agent in load.agents:
        state = "on" if agent.enabled_by_default else "off"
        model = ":".join(p for p in (agent.vendor, agent.model) if p) or "-"
        skills = ", ".join((*agent.allowed_skills, *agent.tools)) or "-"
        print(one_line(f"ok    {agent.name:<18} {agent.format:<8} default {state:<3}  "
                       f"inputs: {_params(agent.inputs)}  outputs: {_params(agent.outputs)}  "
                       f"model: {model}  skills: {skills}  ({agent.source})"))
    for note in load.notes:
        print(one_line(f"note  {note}"))
    for problem in load.problems:
        print(one_line(f"ERROR {problem}"))
    for folder in missing:
        print(one_line(f"ERROR {folder}: agents folder does not exist or is not a folder"))
    print(f"{counted(len(load.agents), 'agent')}, {counted(len(errors), 'error')}")
    return 1 if errors else 0


def _params(params: tuple[AgentParam, ...]) -> str:
    shown = [f"{p.name} ({p.type}{'' if p.required else ', optional'})" for p in params]
    return ", ".join(shown) or "-"
