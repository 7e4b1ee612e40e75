"""How to come back to a session: the exact command line, shown by `--print` and on TUI quit.

Import-light on purpose (stdlib only): the TUI imports it at quit time.
"""

from __future__ import annotations

import shlex
from urllib.parse import urlsplit

__all__ = ["resume_command", "resume_line"]

PROG = "birdie-tui"
# Where a URL holding a password or token is read from instead (`cli/args.py`, `store/database.py`).
URL_VARIABLES = {"--server": "BIRDIE_SERVER", "--database-url": "BIRDIE_DATABASE_URL"}


def _has_credentials(url: str) -> bool:
    """A user part with a password (`user:pw@`), or a bare token (`https://TOKEN@host`);
    `postgresql://alice@db` names a user, which is no secret."""
    try:
        userinfo = urlsplit(url.strip()).netloc.rpartition("@")[0]
    except ValueError:
        return True  # cannot tell: never print it
    return ":" in userinfo or len(userinfo) >= 12


def _url_option(flag: str, url: str) -> list[str]:
    # A pasteable line must not carry the secret: it names the variable that holds the URL.
    if _has_credentials(url):
        return [flag, f'"${URL_VARIABLES[flag]}"']
    return [flag, shlex.quote(url)]


def resume_line(command: str) -> str:
    """`Resume this session: COMMAND`, plus what to set first when it names a variable."""
    needs = [name for name in URL_VARIABLES.values() if f'"${name}"' in command]
    note = "".join(f"  (set {name} to the URL first: it holds a password, not printed here)"
                   for name in needs)
    return f"Resume this session: {command}{note}"


def resume_command(session_id: str, user: str | None = None, *, server: str | None = None,
                   database_url: str | None = None) -> str:
    """`birdie-tui [--server URL | --database-url URL] --session-id ID [--user U]`, each value
    shell-quoted, ready to paste (where the session lives comes first: without it the id
    means nothing). A URL with a password or token is never printed: the line reads it from
    `"$BIRDIE_DATABASE_URL"` / `"$BIRDIE_SERVER"` instead (`resume_line` says to set it)."""
    parts = [PROG]
    if server:
        parts += _url_option("--server", server)
    elif database_url:
        parts += _url_option("--database-url", database_url)
    parts += ["--session-id", shlex.quote(session_id)]
    if user:
        parts += ["--user", shlex.quote(user)]
    return " ".join(parts)
