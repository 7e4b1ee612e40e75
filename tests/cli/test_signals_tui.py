"""The real TUI in a real pseudo-terminal, a message typed into it whose tool runs a process
tree, then: SIGTERM, the terminal closed (the kernel's SIGHUP), or SIGKILL. No tool process
survives; on TERM/HUP the turn is cancelled as Esc does, the app exits 128+signum and the
session on disk is valid and continues."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from ..pty_app import PtyApp
from ..tools.proc_support import (POLL_LIMIT, TREE_PIDS, history_is_valid, read_pids,
                                   wait_gone, write_tree_skill)
from .helpers import run_cli

pytestmark = pytest.mark.integration


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
