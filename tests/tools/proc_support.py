"""Process trees for the tool-process tests: a command that leaves a child and a grandchild
running and writes every pid to a file, and bounded polls for them to appear and to go."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from birdie_tui.tools.reaper_child import _pid_alive

POLL_LIMIT = 60.0  # seconds: generous; a test fails on what it finds, never on how long it took


def tree_command(pid_file: Path, extra: str = "") -> str:
    """bash that starts a child bash, which starts a grandchild `sleep`, all writing their pids
    (the tool's own shell last), then waits: only a kill ends it."""
    return (f"bash -c 'sleep 300 & echo $! >> {pid_file}; wait' & echo $! >> {pid_file}; "
            f"{extra}echo $$ >> {pid_file}; wait")


TREE_PIDS = 3  # the tool's shell, its child, its grandchild


# Running (a zombie waiting for a reaping parent counts as gone): the reaper's own check.
alive = _pid_alive


def read_pids(pid_file: Path) -> list[int]:
    try:
        return [int(x) for x in pid_file.read_text().split()]
    except (OSError, ValueError):
        return []


def wait_for_pids(pid_file: Path, count: int, *, process=None) -> list[int]:
    """The pids once `count` are written; fails if `process` (a Popen) ends first."""
    deadline = time.monotonic() + POLL_LIMIT
    while time.monotonic() < deadline:
        pids = read_pids(pid_file)
        if len(pids) >= count:
            return pids
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the app ended ({process.returncode}) before its tool started")
        time.sleep(0.05)
    raise AssertionError(f"only {read_pids(pid_file)} of {count} pids were written")


def wait_gone(pids: list[int]) -> list[int]:
    """The pids still alive once all are gone or the poll limit is reached (then killed, so a
    failing test leaves nothing behind)."""
    deadline = time.monotonic() + POLL_LIMIT
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.05)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def write_tree_skill(root: Path, pid_file: Path) -> Path:
    """A skills folder with one skill whose `spawn_tree` tool runs `tree_command`."""
    folder = root / "tree"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.MD").write_text(
        "---\nname: tree\ndescription: starts a process tree\n---\n## Tools\n\n"
        "### spawn_tree\ndescription: starts a child and a grandchild that sleep\n"
        f"entrypoint: bash:{tree_command(pid_file)}\n", encoding="utf-8")
    return root


def history_is_valid(messages: list[dict]) -> bool:
    """Every assistant tool call is answered by a tool message before the next user message
    (exported messages: `sessions export --format json`)."""
    waiting: set[str] = set()
    for message in messages:
        if message["role"] == "user" and waiting:
            return False
        if message["role"] == "assistant":
            if waiting:
                return False
            waiting = {call["id"] for call in message.get("tool_calls") or []}
        elif message["role"] == "tool":
            waiting.discard(message.get("tool_call_id"))
    return not waiting
