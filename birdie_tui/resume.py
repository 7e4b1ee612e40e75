"""How to come back to a session: the exact command line, shown by `--print` and on TUI quit.

Import-light on purpose (stdlib only): the TUI imports it at quit time.
"""

from __future__ import annotations

import shlex

__all__ = ["resume_command"]

PROG = "birdie-tui"


def resume_command(session_id: str, user: str | None = None, *, server: str | None = None,
                   database_url: str | None = None) -> str:
    """`birdie-tui [--server URL | --database-url URL] --session-id ID [--user U]`, each value
    shell-quoted, ready to paste (where the session lives comes first: without it the id
    means nothing). Text shown to the user is scrubbed, so a URL's password is masked."""
    parts = [PROG]
    if server:
        parts += ["--server", shlex.quote(server)]
    elif database_url:
        parts += ["--database-url", shlex.quote(database_url)]
    parts += ["--session-id", shlex.quote(session_id)]
    if user:
        parts += ["--user", shlex.quote(user)]
    return " ".join(parts)
