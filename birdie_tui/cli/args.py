"""Argument parsers shared by the command line and the TUI (docs/contracts.md, Command line).

Standard library only, so `create_app(argv)` and `birdie-tui --help` stay light, and neither
`cli` nor `tui` has to import the other to read a command line.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from birdie_tui import version

PROG = "birdie-tui"


def _common(parser: argparse.ArgumentParser, *, opened: str = "the session being opened",
            one_session: bool = True) -> None:
    """The options every mode that runs Birdie takes; `opened` names the sessions --enable
    and --disable apply to (`acp` serves many, so it has no --session-id)."""
    parser.add_argument("--user", help="namespace for sessions and memory (default: $USER)")
    if one_session:
        parser.add_argument("--session-id", help="continue this session (YYYY-MM-DD_N)")
    parser.add_argument("--skills-dir", action="append", type=Path, metavar="DIR",
                        help="skill folder to load instead of the defaults (repeatable)")
    parser.add_argument("--agents-dir", action="append", type=Path, metavar="DIR",
                        help="sub-agent folder searched before the default ones (repeatable)")
    parser.add_argument("--config", type=Path, metavar="FILE", help="JSON provider config file")
    parser.add_argument("--enable", action="append", default=[], metavar="NAME",
                        help=f"enable a skill or sub-agent for {opened} (repeatable)")
    parser.add_argument("--disable", action="append", default=[], metavar="NAME",
                        help=f"disable a skill or sub-agent for {opened} (repeatable)")
    parser.add_argument("--auto-approve", action="store_true",
                        help="run tools that ask for approval without asking" if one_session
                        else "sessions start in the auto approval mode")
    parser.add_argument("--server", metavar="URL",
                        help="attach to the Birdie graph on this LangGraph server "
                             "(default: $BIRDIE_SERVER; unset: run Birdie here)")
    parser.add_argument("--database-url", metavar="URL",
                        help="keep sessions in this PostgreSQL database (postgresql://...; "
                             "default: $BIRDIE_DATABASE_URL, settings.json, else BIRDIE_HOME)")


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="A full-screen terminal home for Birdie, the SKILL.MD-driven agent.",
        epilog="Subcommands: `birdie-tui skills check [DIR ...] [--json]`, "
        "`birdie-tui sessions list|export`.",
    )
    _common(parser)
    parser.add_argument("--continue", "-c", dest="continue_session", action="store_true",
                        help="open your most recent session (a new one if there is none)")
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print the version and exit")
    parser.add_argument("--theme", help="theme name (e.g. birdie-dark, birdie-light, nord)")
    parser.add_argument("--print", "-p", "--prompt", dest="message", metavar="MESSAGE",
                        nargs="?", const="",
                        help="run one turn headless and print the reply (-p and --prompt are "
                        "aliases); `-`, or no MESSAGE with stdin not a terminal, reads it from "
                        "standard input; a MESSAGE with piped stdin sends both, the piped text "
                        "in a <stdin> block")
    parser.add_argument("--approve", action="append", default=[], metavar="CALL_ID",
                        help="with --print --session-id: run this pending tool call and "
                        "finish the turn (repeatable; `all` for every pending call)")
    parser.add_argument("--deny", action="append", default=[], metavar="CALL_ID",
                        help="with --print --session-id: refuse this pending tool call "
                        "(repeatable; `all` for every pending call)")
    parser.add_argument("--output-format", choices=["text", "json", "stream-json"],
                        default="text",
                        help="with --print: the reply as text, one JSON object at the end "
                        "(reply, session, usage, cost, tool calls, stop reason), or one JSON "
                        "event per line")
    return parser


class _VersionAction(argparse.Action):
    """`--version`, with the metadata lookup paid only when asked (startup stays light)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None, option_string: str | None = None) -> None:
        print(f"{PROG} {version()}")
        parser.exit(0)


def parse_main_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse the main command line and check what argparse cannot (exits 2 on a usage error)."""
    parser = main_parser()
    args = parser.parse_args(list(argv))
    _server_from_env(parser, args)
    if args.continue_session and args.session_id:
        parser.error("--continue and --session-id cannot be used together")
    if args.approve or args.deny:
        if args.message is None:
            parser.error("--approve/--deny answer a pending approval: use them with --print")
        if args.message not in ("", None):
            parser.error("--approve/--deny resume the pending turn: send a new message with "
                         "another --print")
        if not (args.session_id or args.continue_session):
            parser.error("--approve/--deny need the session: add --session-id SID")
    return args


def _server_from_env(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`--server` falls back to $BIRDIE_SERVER; a server keeps the sessions, so a database
    URL with it is a contradiction."""
    import os

    if args.server is None:
        args.server = os.environ.get("BIRDIE_SERVER", "").strip() or None
    if args.server is not None and not args.server.strip():
        parser.error("--server needs the URL of a LangGraph server")
    if args.server and getattr(args, "database_url", None):
        parser.error("--server and --database-url cannot be used together: the server "
                     "keeps the sessions")


def skills_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"{PROG} skills")
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="parse skill folders and report every skill and error")
    check.add_argument("dirs", nargs="*", type=Path, metavar="DIR")
    check.add_argument("--json", action="store_true")
    return parser


def agents_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"{PROG} agents")
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="parse sub-agent folders (AGENT.MD and Markdown agent "
                           "files) and report every agent and error")
    check.add_argument("dirs", nargs="*", type=Path, metavar="DIR")
    check.add_argument("--json", action="store_true")
    start = sub.add_parser("start", help="run every trigger (every:, cron:, watch:, settings' "
                           "schedules) in the foreground until SIGTERM or Ctrl+C, one per "
                           "home; with --server, make them the server's cron jobs and exit")
    _run_options(start, user="whose sessions and run log (default: $USER)",
                 database="keep runs in this PostgreSQL database (default: "
                          "$BIRDIE_DATABASE_URL, settings.json, else BIRDIE_HOME)")
    start.add_argument("--server", metavar="URL", help=SERVER_HELP)
    logs = sub.add_parser("logs", help="the run log of scheduled and manual agent runs, "
                          "newest first (NAME: an agent or a settings schedule; with "
                          "--server: the cron jobs and the threads they ran)")
    logs.add_argument("name", nargs="?", metavar="NAME")
    logs.add_argument("--json", action="store_true")
    logs.add_argument("--limit", type=_positive_int, default=50, metavar="N")
    logs.add_argument("--user")
    logs.add_argument("--database-url", metavar="URL", help="the PostgreSQL database (default: "
                      "$BIRDIE_DATABASE_URL, then settings.json)")
    logs.add_argument("--server", metavar="URL", help=SERVER_HELP)
    _agents_server_actions(sub)
    _agents_run(sub)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


SERVER_HELP = ("a LangGraph server: its own cron jobs run the triggers (default: "
               "$BIRDIE_SERVER)")


def _agents_server_actions(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`agents stop` with `--server URL` (the `start` it undoes is `agents_parser`'s)."""
    stop = sub.add_parser("stop", help="with --server: delete the cron jobs `agents start "
                          "--server` made")
    stop.add_argument("--server", metavar="URL", help=SERVER_HELP)


def _agents_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="run one agent now, headless, as its trigger would "
                         "(a session of its own, a record in the run log)")
    run.add_argument("name", metavar="NAME")
    run.add_argument("--input", action="append", default=[], metavar="NAME=VALUE",
                     help="a value for one of the agent's inputs, typed as it declares "
                          "(repeatable; arrays and objects as JSON)")
    run.add_argument("--approval", choices=["read-only", "ask", "auto"], default="read-only",
                     help="what its tool calls may do with no one to ask: read-only (calls "
                          "that need approval wait), ask (every call waits unless allowed), "
                          "auto (all run); default read-only")
    run.add_argument("--output-format", choices=["text", "json", "stream-json"],
                     default="text", help="as --print's")
    _run_options(run, user="namespace for sessions and the run log (default: $USER)",
                 database="keep the session and the record in this PostgreSQL database")


def _run_options(parser: argparse.ArgumentParser, *, user: str, database: str) -> None:
    """What `agents start` and `agents run` take to build the engine a run uses."""
    parser.add_argument("--user", help=user)
    parser.add_argument("--database-url", metavar="URL", help=database)
    parser.add_argument("--agents-dir", action="append", type=Path, metavar="DIR",
                        help="agent folder searched before the default ones (repeatable)")
    parser.add_argument("--skills-dir", action="append", type=Path, metavar="DIR",
                        help="skill folder to load instead of the defaults (repeatable)")
    parser.add_argument("--config", type=Path, metavar="FILE", help="JSON provider config file")


def acp_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} acp",
        description="Serve Birdie to an editor over the Agent Client Protocol (JSON-RPC on "
                    "stdin/stdout; logs go to $BIRDIE_HOME/logs/birdie-tui.log).")
    _common(parser, opened="every new session", one_session=False)
    return parser


def sessions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"{PROG} sessions")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="list the user's sessions, newest first (with a "
                             "database: the team's)")
    listing.add_argument("--user")
    listing.add_argument("--json", action="store_true")
    export = sub.add_parser("export", help="print a session's conversation (ID), or copy the "
                            "database's sessions into a home folder (--to-home DIR)")
    export.add_argument("id", nargs="?")
    export.add_argument("--user")
    export.add_argument("--format", choices=["markdown", "json"], default="markdown")
    export.add_argument("--to-home", type=Path, metavar="DIR",
                        help="copy sessions and memory from the database into this BIRDIE_HOME")
    imported = sub.add_parser("import", help="copy a home folder's sessions and memory into "
                              "the database")
    imported.add_argument("--from-home", type=Path, metavar="DIR", required=True)
    imported.add_argument("--user", help="only this user's sessions (default: every user)")
    for sub_parser in (listing, export, imported):
        sub_parser.add_argument("--database-url", metavar="URL",
                                help="the PostgreSQL database (default: $BIRDIE_DATABASE_URL, "
                                     "then settings.json)")
    return parser
