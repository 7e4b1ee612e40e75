"""The real TUI in a real pseudo-terminal, a message typed into it whose tool runs a process
tree, then: SIGTERM, the terminal closed (the kernel's SIGHUP), or SIGKILL. No tool process
survives; on TERM/HUP the turn is cancelled as Esc does, the app exits 128+signum and the
session on disk is valid and continues."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

import pytest

from ..conftest import clean_env
from ..skills.proc_support import (POLL_LIMIT, TREE_PIDS, history_is_valid, read_pids,
                                   wait_gone, write_tree_skill)
from .helpers import run_cli


class PtyApp:
    """`birdie-tui` on the slave side of a new pty, as its controlling terminal."""

    def __init__(self, home, *args: str) -> None:
        env = clean_env(home)
        env.update(TERM="xterm-256color", BIRDIE_WATCH="0")
        argv = [sys.executable, "-m", "birdie_tui.cli", *args]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: nothing but exec
            os.execve(sys.executable, argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.screen = bytearray()
        self.status: int | None = None

    def pump(self, seconds: float) -> None:
        """Read what the app draws (it must never block on a full terminal)."""
        end = time.monotonic() + seconds
        while self.fd >= 0 and time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    return
                self.screen.extend(data)

    def wait_for(self, what: bytes) -> None:
        deadline = time.monotonic() + POLL_LIMIT
        while what not in self.screen and time.monotonic() < deadline:
            self.pump(0.1)
        assert what in self.screen, f"never drawn: {what!r}"

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def hang_up(self) -> None:
        """Close the terminal: the kernel sends SIGHUP to the app, reads and writes fail."""
        os.close(self.fd)
        self.fd = -1

    def wait_exit(self) -> int:
        deadline = time.monotonic() + POLL_LIMIT
        while time.monotonic() < deadline:
            self.pump(0.05) if self.fd >= 0 else time.sleep(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError("the app did not exit")

    def close(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (OSError, ChildProcessError):
                pass
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def run_tool_in_tui(home, tmp_path) -> tuple[PtyApp, list[int]]:
    pids_file = tmp_path / "pids"
    skills = write_tree_skill(tmp_path / "skills", pids_file)
    app = PtyApp(home, "--skills-dir", str(skills), "--auto-approve")
    app.wait_for(b"Quit")  # the footer: the app is up and reads keys
    app.type("call spawn_tree")
    app.wait_for(b"spawn_tree")
    app.type("\r")
    deadline = time.monotonic() + POLL_LIMIT
    while len(read_pids(pids_file)) < TREE_PIDS and time.monotonic() < deadline:
        app.pump(0.1)
    pids = read_pids(pids_file)
    assert len(pids) >= TREE_PIDS, bytes(app.screen[-2000:])
    return app, pids


STOPS = {"SIGTERM": signal.SIGTERM, "hangup": signal.SIGHUP, "SIGKILL": signal.SIGKILL}


@pytest.mark.slow
@pytest.mark.parametrize("how", list(STOPS))
def test_a_stopped_tui_leaves_no_tool_process(isolated_home, tmp_path, how):
    """SIGTERM, a closed terminal or SIGKILL while a tool runs: every tool process goes; TERM
    and HUP end the app with 128+signum, SIGKILL as killed."""
    app, pids = run_tool_in_tui(isolated_home, tmp_path)
    try:
        if how == "hangup":
            app.hang_up()
        else:
            os.kill(app.pid, STOPS[how])
        status = app.wait_exit()
    finally:
        app.close()
    assert wait_gone(pids) == []
    assert status == (-signal.SIGKILL if how == "SIGKILL" else 128 + STOPS[how])
    if how == "SIGKILL":
        return
    sessions = json.loads(run_cli(isolated_home, "sessions", "list", "--json").stdout)
    session_id = sessions[0]["id"]
    exported = run_cli(isolated_home, "sessions", "export", session_id, "--format", "json")
    messages = json.loads(exported.stdout)["messages"]
    assert messages[0]["content"] == "call spawn_tree" and history_is_valid(messages)
    again = run_cli(isolated_home, "--print", "after the stop", "--session-id", session_id)
    assert again.returncode == 0, again.stderr


@pytest.mark.slow
def test_sigterm_restores_the_terminal_and_says_how_to_resume(isolated_home, tmp_path):
    """After SIGTERM the app leaves the alternate screen like a normal quit and prints the
    command that resumes the session."""
    app, pids = run_tool_in_tui(isolated_home, tmp_path)
    try:
        os.kill(app.pid, signal.SIGTERM)
        app.wait_exit()
        app.pump(0.2)
    finally:
        app.close()
    assert wait_gone(pids) == []
    tail = bytes(app.screen).rpartition(b"\x1b[?1049h")[2]
    assert b"\x1b[?1049l" in tail and b"Resume this session: birdie-tui --session-id" in tail
