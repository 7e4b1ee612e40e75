"""Runs one stdio MCP server and takes it down with the app, whatever kills the app.

Run by path as `python -I -S guardian.py APP_PID COMMAND [ARG ...]` (standard library only,
never the package: it starts in a few milliseconds). Linux only; elsewhere servers start as
before (see `wrap`).

A stdio server ends when its stdin closes, and the kernel closes it when the app dies, even by
SIGKILL. But a server busy in a synchronous tool call (FastMCP runs a plain `def` tool on its
event loop) never reads that EOF: measured, a server in a 30 s `time.sleep` tool outlived a
SIGKILLed birdie-tui by the whole 30 s, and a tool that never returns leaks it for good. The
guardian starts the server as its child, in the process group the MCP client made for it,
asks the kernel for SIGTERM when the app dies (PR_SET_PDEATHSIG: the app's event loop thread
starts servers, and it lives as long as the app), and then sends the group SIGTERM, and
SIGKILL after a grace second. Its own copies of stdin and stdout are closed at once: the server
alone talks to the app, so an EOF means what it meant before.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

GRACE_SECONDS = 1.0
PR_SET_PDEATHSIG = 1


def wrap(command: str, args: list[str]) -> tuple[str, list[str]]:
    """The command line that starts `command args` under a guardian (unchanged off Linux)."""
    if not sys.platform.startswith("linux"):
        return command, list(args)
    return sys.executable, ["-I", "-S", os.path.abspath(__file__), str(os.getpid()),
                            command, *args]


def _death_signal(app_pid: int) -> bool:
    """SIGTERM to this process when the app dies; False if it is already gone."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no prctl: the server still ends on stdin EOF, as it would without us
    return os.getppid() == app_pid


def _take_down(child: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM to the whole group (the server and what it started), SIGKILL after a grace."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    group = os.getpgrp()
    try:
        os.killpg(group, signal.SIGTERM)
    except OSError:
        pass
    deadline = time.monotonic() + GRACE_SECONDS
    while child is not None and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        os.killpg(group, signal.SIGKILL)  # the guardian too: that is its way out
    except OSError:
        pass
    os._exit(128 + signal.SIGTERM)


def _detach_stdio() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)


def main(argv: list[str]) -> int:
    app_pid, command = int(argv[1]), argv[2:]
    held: list[subprocess.Popen[bytes]] = []
    # Armed before the server starts: a signal in between still takes the group down.
    signal.signal(signal.SIGTERM, lambda *_: _take_down(held[0] if held else None))
    alive = _death_signal(app_pid)
    try:
        held.append(subprocess.Popen(command))  # stdin, stdout, stderr, env, cwd: inherited
    except OSError as exc:
        print(f"cannot run {command[0]}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        return 127
    _detach_stdio()
    if not alive or os.getppid() != app_pid:  # the app died before the kernel could tell us
        _take_down(held[0])
    code = held[0].wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
