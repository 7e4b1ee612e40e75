"""A real `birdie-tui --print` stopped by SIGTERM, SIGHUP or SIGKILL while its tool runs a
process tree: no tool process survives; TERM/HUP cancel the turn as Esc does (exit 128+signum,
one line on stderr) and the session on disk is valid and can be continued."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from ..conftest import clean_env
from ..tools.proc_support import (TREE_PIDS, history_is_valid, wait_for_pids, wait_gone,
                                   write_tree_skill)
from .helpers import run_cli

pytestmark = pytest.mark.integration


def start_print(home, skills, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "birdie_tui.cli", "--print", "call spawn_tree",
         "--skills-dir", str(skills), "--auto-approve", "--output-format", "stream-json", *extra],
        env=clean_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=["SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_stopped_print_leaves_no_tool_process(isolated_home, tmp_path, sig):
    """Whatever signal stops `--print` mid-tool, the tool's shell, child and grandchild go."""
    pids_file = tmp_path / "pids"
    skills = write_tree_skill(tmp_path / "skills", pids_file)
    app = start_print(isolated_home, skills)
    pids = wait_for_pids(pids_file, TREE_PIDS, process=app)
    app.send_signal(sig)
    app.communicate(timeout=120)
    assert wait_gone(pids) == []
    if sig == signal.SIGKILL:
        assert app.returncode == -signal.SIGKILL


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_term_and_hup_cancel_the_turn_like_esc(isolated_home, tmp_path, sig):
    """SIGTERM/SIGHUP: exit 128+signum with one line on stderr; the cancelled turn is on disk
    with every tool call answered, and another `--print` continues the session."""
    pids_file = tmp_path / "pids"
    skills = write_tree_skill(tmp_path / "skills", pids_file)
    app = start_print(isolated_home, skills)
    wait_for_pids(pids_file, TREE_PIDS, process=app)
    app.send_signal(sig)
    out, err = app.communicate(timeout=120)
    assert app.returncode == 128 + sig
    name = signal.Signals(sig).name
    assert err.strip().splitlines() == [
        f"birdie-tui: stopped by {name}: the running turn was cancelled and the session kept"]
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "session" and events[-1]["type"] == "tool_call"

    session_id = events[0]["id"]
    exported = run_cli(isolated_home, "sessions", "export", session_id, "--format", "json")
    assert exported.returncode == 0, exported.stderr
    messages = json.loads(exported.stdout)["messages"]
    assert messages[0] == {"role": "user", "content": "call spawn_tree"}
    assert any(m.get("tool_calls") for m in messages) and history_is_valid(messages)

    again = run_cli(isolated_home, "--print", "still there?", "--session-id", session_id,
                    "--skills-dir", str(skills))
    assert again.returncode == 0, again.stderr
    assert "still there?" in again.stdout
