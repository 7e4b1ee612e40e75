"""`birdie-tui sessions ...` on a shared PostgreSQL database: `list` (the team's sessions, with
who wrote each last), `import --from-home DIR` and `export --to-home DIR` (`agent.transfer`);
and how any `sessions list` prints (`print_sessions`).
Without a database URL, `list` and `export ID` stay the embedded store's (in `cli/headless.py`).

Errors are one line on stderr, exit 2: no URL, an invalid one, an unreachable database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import TYPE_CHECKING

from birdie_tui.screen_text import one_line
from birdie_tui.text import counted

if TYPE_CHECKING:
    from birdie_tui.store.session_meta import SessionSummary

__all__ = ["database_command", "print_sessions"]

EXIT_USAGE = 2


def _fail(message: str) -> int:
    from birdie_tui.secrets import scrub

    print(f"birdie-tui: {one_line(scrub(message))}", file=sys.stderr)
    return EXIT_USAGE


def database_command(args: argparse.Namespace) -> int | None:
    """Run `args` when it is a database command; None when the embedded path should."""
    from birdie_tui.store.database import InvalidDatabaseUrl, resolve_database_url
    from birdie_tui.store.paths import BirdiePaths, InvalidName

    if args.action == "export" and (args.id is None) == (args.to_home is None):
        return _fail("sessions export: give a session ID (its conversation) or --to-home DIR "
                     "(every session), not both")
    if args.action == "export" and args.id is not None:
        return None
    try:
        url = resolve_database_url(args.database_url, os.environ, BirdiePaths.from_env())
    except InvalidDatabaseUrl as exc:
        return _fail(str(exc))
    if url is None:
        if args.action == "list":
            return None
        return _fail(f"sessions {args.action}: no database: give --database-url "
                     "postgresql://... or set $BIRDIE_DATABASE_URL")
    from birdie_tui.store.pg.connect import DatabaseUnavailable

    try:
        if args.action == "list":
            return _list(args, url)
        return _transfer(args, url)
    except (DatabaseUnavailable, InvalidName) as exc:
        return _fail(str(exc))


def _list(args: argparse.Namespace, url: str) -> int:
    from birdie_tui.store.paths import default_user, validate_user
    from birdie_tui.store.pg.sessions import PgSessionStore

    store = PgSessionStore(url, validate_user(args.user or default_user()))
    try:
        summaries = store.summaries()
    finally:
        store.close()
    return print_sessions(summaries, as_json=args.json, shared=True)


def print_sessions(summaries: list[SessionSummary], *, as_json: bool, shared: bool) -> int:
    """`sessions list`, newest first: a line per session, or --json. A shared database's
    list also says who owns each session and who wrote it last."""
    from birdie_tui.store.session_meta import session_row

    if as_json:
        rows = [{**session_row(s), **({"user_id": s.user_id, "last_user": s.last_user,
                                       "last_host": s.last_host} if shared else {})}
                for s in summaries]
        print(json.dumps(rows, indent=2))
        return 0
    if not summaries:
        print("no sessions yet")
        return 0
    lines = []
    for s in summaries:
        tokens = f"↑{s.input_tokens} ↓{s.output_tokens}"
        who = ""
        if shared:
            who = f"{s.last_user}@{s.last_host}" if s.last_user else s.user_id
            who = f"{who:<24} "
        turns = "turn " if s.turns == 1 else "turns"  # the columns stay aligned
        lines.append(f"{s.id:<14} {s.turns:>4} {turns}  {tokens:<16} "
                     f"{s.updated_at[:16].replace('T', ' ')}  {who}{s.title or '(untitled)'}")
    # Titles come from first messages, and on a shared database from other users: no escape
    # sequence in one may reach the terminal (an OSC 52 would write the reader's clipboard).
    lines = [one_line(line) for line in lines]
    print("\n".join(lines))  # one write, not ten thousand
    return 0


def _transfer(args: argparse.Namespace, url: str) -> int:
    from birdie_tui.agent.transfer import export_home, import_home

    if args.action == "import":
        folder = args.from_home.expanduser()
        if not (folder / "sessions").is_dir():
            return _fail(f"sessions import: {folder} has no sessions folder (a BIRDIE_HOME "
                         "holds sessions/<user>/...)")
        report = asyncio.run(import_home(folder, url, args.user))
        verb = "imported"
    else:
        report = asyncio.run(export_home(args.to_home.expanduser(), url, args.user))
        verb = "exported"
    print(f"{verb} {counted(len(report.moved), 'session')}, {counted(report.notes, 'memory note')}; "
          f"{len(report.skipped)} already there")
    for old, new in sorted(report.renamed.items()):
        if old not in report.skipped:
            print(f"  {old} -> {new} (the id was taken)")
    for problem in report.problems:
        print(f"  problem: {problem}", file=sys.stderr)
    return 1 if report.problems else 0
