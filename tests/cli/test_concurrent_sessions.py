"""Two processes continuing one session at once: the second waits for the first
(saying for whom on stderr), so no turn is lost and the counts stay right; a wait that lasts
too long ends with one clear line and exit 1."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.agent.history import history_problems
from birdie_tui.store import BirdiePaths, SessionStore

from ..conftest import clean_env
from .helpers import USER, assert_one_line_error, raw_history, run_cli, session_json

pytestmark = pytest.mark.integration

PAIRS = 20


def start(home: Path, session_id: str, message: str, **env: str) -> subprocess.Popen[str]:
    full = {**clean_env(home), **env}
    return subprocess.Popen([sys.executable, "-m", "birdie_tui.cli", "--session-id", session_id,
                             "--print", message], env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def history(home: Path, session_id: str) -> list:
    """The session's checkpointed history, read as it is on disk (no repair)."""
    return asyncio.run(raw_history(home, session_id))


def new_session(home: Path) -> str:
    first = run_cli(home, "--print", "first", "--output-format", "stream-json")
    assert first.returncode == 0, first.stderr
    return first.stdout.split('"id": "')[1].split('"')[0]


@pytest.mark.slow
def test_twenty_pairs_of_concurrent_turns_lose_nothing(isolated_home):
    """20 pairs of `--print --session-id SID` started together (turns paced so they overlap):
    all exit 0, every turn is in the history with its own reply right after it, the history
    is valid, and `turns` counts them all."""
    sid = new_session(isolated_home)
    waited = 0
    for pair in range(PAIRS):
        procs = [start(isolated_home, sid, f"pair {pair} process {side}",
                       BIRDIE_OFFLINE_TPS="400") for side in "ab"]
        for proc in procs:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err
            assert "Traceback" not in err
            waited += "waiting for process" in err
    messages = history(isolated_home, sid)
    assert history_problems(messages) == []
    asked = [m for m in messages if isinstance(m, HumanMessage)]
    assert sorted(m.content for m in asked) == sorted(
        ["first"] + [f"pair {p} process {s}" for p in range(PAIRS) for s in "ab"])
    for index, message in enumerate(messages):  # each turn's reply follows it, in order
        if isinstance(message, HumanMessage):
            reply = messages[index + 1]
            assert isinstance(reply, AIMessage) and message.content in reply.content
    data = session_json(isolated_home, sid)
    assert data["turns"] == 1 + 2 * PAIRS
    assert len(data["token_log"]) == data["turns"]
    assert waited >= 1  # the pacing made some pairs overlap: one of them waited


def test_a_turn_waits_for_the_process_holding_the_session(isolated_home):
    """While another process holds the session's turn lock, `--print` says whom it waits
    for on stderr, then runs its turn once the lock is free."""
    sid = new_session(isolated_home)
    lock = SessionStore(BirdiePaths(isolated_home), USER).turn_lock(sid)
    assert lock.try_acquire()
    proc = start(isolated_home, sid, "my turn comes")
    try:
        line = proc.stderr.readline()
        assert line.startswith(f"birdie-tui: waiting for process {os.getpid()}, ")
        assert sid in line
        assert proc.poll() is None  # still waiting
    finally:
        lock.release()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "my turn comes" in out
    assert session_json(isolated_home, sid)["turns"] == 2


def test_a_wait_that_lasts_too_long_fails_with_one_line(isolated_home):
    """With BIRDIE_SESSION_WAIT=0 a busy session is not waited for: exit 1, one line naming
    the process holding it; nothing of the turn reaches the session."""
    sid = new_session(isolated_home)
    before = session_json(isolated_home, sid)
    lock = SessionStore(BirdiePaths(isolated_home), USER).turn_lock(sid)
    assert lock.try_acquire()
    try:
        proc = run_cli(isolated_home, "--session-id", sid, "--print", "too soon",
                       env={"BIRDIE_SESSION_WAIT": "0"})
    finally:
        lock.release()
    assert proc.returncode == 1
    line = assert_one_line_error(proc)
    assert f"session {sid} is busy: process {os.getpid()} is running a turn" in line
    assert session_json(isolated_home, sid)["turns"] == before["turns"]
    assert len(history(isolated_home, sid)) == 2


def test_a_toggle_in_one_process_keeps_a_turn_counted_in_another(isolated_home):
    """A process holding a stale copy of the session (a TUI) toggles a skill after another
    process counted a turn: the toggle lands and the turn stays counted."""
    sid = new_session(isolated_home)
    store = SessionStore(BirdiePaths(isolated_home), USER)
    stale = store.load(sid)
    proc = run_cli(isolated_home, "--session-id", sid, "--print", "counted elsewhere")
    assert proc.returncode == 0, proc.stderr
    stale.enabled_skills.append("planning")
    store.save(stale)
    data = session_json(isolated_home, sid)
    assert data["turns"] == 2 and data["enabled_skills"] == ["planning"]
    assert len(data["token_log"]) == 2
