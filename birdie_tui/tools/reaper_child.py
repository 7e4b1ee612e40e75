"""The tool reaper's own program: run as `python -I -S reaper_child.py TOKEN` by `reaper.py`.

It outlives nothing: it reads its standard input, a pipe whose only writer is the app, for lines
`+PGID` (a tool's process group started) and `-PGID` (it is gone). When the pipe reaches EOF the
app has died, by whatever signal (SIGKILL included: the kernel closes the pipe), and every group
still registered gets SIGTERM, a short grace, then SIGKILL. On Linux it also kills every process
whose environment carries `BIRDIE_TOOL_OWNER=TOKEN`: that reaches a tool started in the instant
before its group was registered, and a grandchild that left the group (`setsid`, a daemon).

Standard library only, imported by path with -I -S: it starts in ~10 ms and never imports the
package (or anything that could shadow the standard library).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

MARKER = b"BIRDIE_TOOL_OWNER"
PRUNE_SECONDS = 2.0  # how often groups that died on their own are forgotten (pid reuse)
GRACE_SECONDS = 1.0  # between SIGTERM and SIGKILL


class Stop(Exception):
    """A signal asked the reaper to go: it reaps first (fail safe, never leaves tools behind)."""


def _stop(signum: int, frame: object) -> None:
    raise Stop


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # the number now belongs to someone else's group: not ours
        return False
    return True


def marked(token: bytes) -> set[int]:
    """Pids of live processes started for this app's tools (Linux: /proc/PID/environ)."""
    if not token or not os.path.isdir("/proc"):
        return set()
    needle = b"\0" + MARKER + b"=" + token + b"\0"
    me, found = os.getpid(), set()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if needle in b"\0" + f.read() + b"\0":
                    found.add(int(name))
        except OSError:  # gone, or another user's process
            continue
    return found


def _signal_all(groups: set[int], pids: set[int], sig: int) -> None:
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except OSError:
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def reap(groups: set[int], token: bytes) -> None:
    """SIGTERM, up to GRACE_SECONDS for them to go, SIGKILL whatever is left (found again)."""
    groups = {g for g in groups if group_alive(g)}
    pids = marked(token)
    _signal_all(groups, pids, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline:
        if not any(map(group_alive, groups)) and not any(map(_pid_alive, pids)):
            break
        time.sleep(0.02)
    for _ in range(3):  # a process forked while dying is found on the next pass
        groups = {g for g in groups if group_alive(g)}
        pids = {p for p in pids | marked(token) if _pid_alive(p)}
        if not groups and not pids:
            return
        _signal_all(groups, pids, signal.SIGKILL)
        time.sleep(0.02)


def _apply(line: bytes, groups: set[int]) -> None:
    try:
        pgid = int(line[1:])
    except ValueError:
        return
    if pgid <= 1:  # never 0 (our own group), 1 or negative: killpg would reach too far
        return
    if line[:1] == b"+":
        groups.add(pgid)
    elif line[:1] == b"-":
        groups.discard(pgid)


def serve(token: bytes) -> None:
    groups: set[int] = set()
    pending = b""
    try:
        while True:
            ready, _, _ = select.select([0], [], [], PRUNE_SECONDS)
            if not ready:
                groups = {g for g in groups if group_alive(g)}
                continue
            data = os.read(0, 65536)
            if not data:  # the app is gone
                break
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                _apply(line.strip(), groups)
    except (Stop, OSError):
        pass
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)  # a second signal must not cut the reaping short
    reap(groups, token)


def main() -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _stop)
    serve(sys.argv[1].encode() if len(sys.argv) > 1 else b"")


if __name__ == "__main__":
    main()
