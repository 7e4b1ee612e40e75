"""A stdio "MCP server" that never answers `initialize`: it reads its stdin and says nothing.

Usage: hang_server.py LAUNCH_LOG TAG. Each launch appends `launch TAG PID` to LAUNCH_LOG; the
end of its stdin appends `eof TAG`, SIGTERM `term TAG` (so a test can tell the order of
launches and shutdowns without reading a clock)."""

import os
import signal
import sys

log_path, tag = sys.argv[1], sys.argv[2]


def note(line: str) -> None:
    with open(log_path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def on_term(signum, frame):
    note(f"term {tag}")
    os._exit(0)


signal.signal(signal.SIGTERM, on_term)
note(f"launch {tag} {os.getpid()}")
print(f"{tag}: listening, never answering", file=sys.stderr, flush=True)
while sys.stdin.buffer.read1(65536):
    pass
note(f"eof {tag}")
