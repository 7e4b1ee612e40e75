"""How to come back to a session: the exact command line, shown by `--print` and on TUI quit.

Import-light on purpose (stdlib only): the TUI imports it at quit time.
"""

from __future__ import annotations

import shlex

__all__ = ["resume_command"]

PROG = "birdie-tui"


def resume_command(session_id: str, user: str | None = None) -> str:
    """`birdie-tui --session-id ID [--user U]`, each value shell-quoted, ready to paste."""
    parts = [PROG, "--session-id", shlex.quote(session_id)]
    if user:
        parts += ["--user", shlex.quote(user)]
    return " ".join(parts)
