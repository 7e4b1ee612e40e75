"""`birdie-tui agents logs [NAME] [--json] [--limit N] [--user U] [--database-url URL]`: the
run log, newest first: when each run started (local time), the agent (or `schedule:<name>`),
its trigger, status, duration, tokens, session and the first line of its error or answer.

NAME is an agent or a settings schedule's name. With no runs of it: "no runs of NAME", exit 0,
when it is one; exit 1 when nothing of that name exists. Every text shown passes through
`screen_text.one_line`: an answer holding an escape sequence must not reach the terminal.
Errors (a bad URL, an unreachable database, a home that cannot be written) are one line, exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from birdie_tui.screen_text import one_line

if TYPE_CHECKING:
    from birdie_tui.schedules.models import RunRecord
    from birdie_tui.store.paths import BirdiePaths

__all__ = ["format_runs", "logs_command"]

EXIT_USAGE = 2


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    from birdie_tui.secrets import scrub

    print(f"birdie-tui: agents logs: {one_line(scrub(message))}", file=sys.stderr)
    return code


def logs_command(args: argparse.Namespace) -> int:
    from birdie_tui.store.database import InvalidDatabaseUrl, resolve_database_url
    from birdie_tui.store.paths import BirdiePaths, InvalidName, default_user, validate_user
    from birdie_tui.store.pg.connect import DatabaseUnavailable
    from birdie_tui.store.run_log import RunLogError

    paths = BirdiePaths.from_env()
    try:
        user = validate_user(args.user or default_user())
        url = resolve_database_url(args.database_url, os.environ, paths)
        records = _records(paths, user, url, args.name, args.limit)
    except (InvalidName, InvalidDatabaseUrl, DatabaseUnavailable, RunLogError) as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps([r.to_dict() for r in records], indent=2))
    elif records:
        print("\n".join(format_runs(records)))
    if records or not args.name:
        if not records and not args.json:
            print("no runs yet")
        return 0
    if _is_known(paths, args.name):
        if not args.json:
            print(one_line(f"no runs of {args.name}"))
        return 0
    return _fail(f"no agent or schedule named {args.name!r}, and no runs of it", 1)


def _records(paths: BirdiePaths, user: str, url: str | None, name: str | None,
             limit: int) -> list[RunRecord]:
    from birdie_tui.store.run_log import open_run_log

    if not url and not paths.runs_db(user).exists():
        return []  # nothing ran yet: no file is made just to say so
    log = open_run_log(paths, user, url)
    try:
        for warning in getattr(log, "warnings", []):
            print(one_line(f"birdie-tui: recovered: {warning}"), file=sys.stderr)
        return log.list(name, limit)
    finally:
        log.close()


def _is_known(paths: BirdiePaths, name: str) -> bool:
    """Whether `name` is an agent in the folders `agents check` reads, or a settings
    schedule (even a bad one: it has no runs because it never ran)."""
    from birdie_tui.agent_files.loader import default_agent_dirs, load_agents
    from birdie_tui.schedules.loading import settings_schedules

    agents = load_agents(default_agent_dirs(paths, os.environ, Path.cwd()))
    if any(a.name == name for a in agents.agents):
        return True
    schedules, _problems = settings_schedules(paths.settings_file)
    return any(t.key == f"schedule:{name}" for t in schedules)


def format_runs(records: list[RunRecord]) -> list[str]:
    """A line per run, newest first as given; every field made safe for the terminal."""
    lines = []
    for r in records:
        started = r.started_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        who = r.agent or r.trigger_key
        tokens = f"↑{r.input_tokens} ↓{r.output_tokens}"
        said = r.error or r.answer or ""
        first = next((line.strip() for line in said.splitlines() if line.strip()), "")
        lines.append(one_line(f"{started}  {who:<16} {r.trigger:<18} {r.status:<9} "
                              f"{_duration(r.duration_s):>7}  {tokens:<14} "
                              f"{r.session_id or '-':<14} {first[:100]}").rstrip())
    return lines


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f}s"
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    return (f"{hours}h" if hours else "") + f"{rest // 60}m{rest % 60:02d}s"
