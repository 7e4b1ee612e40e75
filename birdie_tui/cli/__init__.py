"""The command line (docs/contracts.md, Command line): `main`, the `birdie-tui` entry point,
picks the TUI, headless `--print`, the `skills` / `agents` / `sessions` subcommands, or `acp`
(an Agent Client Protocol agent on stdio, `birdie_tui/acp/`). Kept import-light:
the engine and the TUI are imported only once chosen.

The package holds what only the command line runs: the parsers (`args.py`, which
`tui.create_app(argv)` reads too), `--print` and the subcommands (`headless.py`, `sessions.py`),
piped stdin (`piped.py`), and SIGTERM/SIGHUP handling (`signals.py`, shared with the TUI it
starts). `python -m birdie_tui.cli` runs `main` (`__main__.py`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from birdie_tui.cli.args import (PROG, acp_parser, agents_parser, parse_main_args,
                                 sessions_parser, skills_parser)


def fail(message: str, code: int = 2) -> int:
    from birdie_tui.screen_text import clean

    print(f"{PROG}: {clean(message)}", file=sys.stderr)  # it may quote a file or a server
    return code


def stdout_closed() -> int:
    """Whoever read our output went away (`... | head -1`): stop with one line, no traceback,
    and no second BrokenPipeError when the interpreter flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return fail("output closed (broken pipe)", 141)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from birdie_tui.cli import headless

    try:
        if argv and argv[0] == "skills":
            return headless.skills_command(skills_parser().parse_args(argv[1:]))
        if argv and argv[0] == "agents":
            from birdie_tui.cli.agents import agents_command

            return agents_command(agents_parser().parse_args(argv[1:]))
        if argv and argv[0] == "sessions":
            return headless.sessions_command(sessions_parser().parse_args(argv[1:]))
        if argv and argv[0] == "acp":
            from birdie_tui.acp import acp_command

            return acp_command(acp_parser().parse_args(argv[1:]))
        args = parse_main_args(argv)
        if args.message is not None:
            problem = headless.read_message(args)
            if problem is not None:
                return fail(problem)
            return headless.print_command(args)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except BrokenPipeError:
        return stdout_closed()

    from birdie_tui.tui import run_app

    return run_app(argv)

