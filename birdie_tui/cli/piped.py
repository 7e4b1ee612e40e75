"""Standard input piped beside a `--print` message: `printf 'ERROR disk full\n' | birdie-tui
-p "summarize these logs"` sends the message, a blank line, then the piped text as

    <stdin>
    ERROR disk full
    </stdin>

(a tag rather than a Markdown fence: piped text may hold backticks of its own).

Only a pipe or a regular file counts as piped: a terminal, `/dev/null` and sockets are left
alone. A pipe that stays silent (a parent that never closes it) is waited for at most
`BIRDIE_STDIN_WAIT` seconds before the message goes on without it, saying so on stderr.
"""

from __future__ import annotations

import os
import select
import stat
import sys
from collections.abc import Mapping

STDIN_WAIT_S = 3.0  # for the first byte (or the end) of a pipe that came with a message


def stdin_is_piped() -> bool:
    """True when fd 0 is a pipe or a regular file (not a terminal, /dev/null or a socket)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def stdin_wait(environ: Mapping[str, str] = os.environ) -> float:
    try:
        return max(0.0, float(environ.get("BIRDIE_STDIN_WAIT", "") or STDIN_WAIT_S))
    except ValueError:
        return STDIN_WAIT_S


def stdin_ready(seconds: float) -> bool:
    """True once stdin has data or its end (a regular file at once); False after `seconds`."""
    try:
        ready, _, _ = select.select([sys.stdin.fileno()], [], [], seconds)
    except (OSError, ValueError, AttributeError):
        return True  # cannot tell: read, as without a message
    return bool(ready)


def with_piped(message: str, piped: str) -> str:
    """The message, a blank line, then the piped text in a <stdin> block ("" adds nothing)."""
    piped = piped.replace("\r\n", "\n").rstrip("\n")
    if not piped.strip():
        return message
    return f"{message}\n\n<stdin>\n{piped}\n</stdin>"
