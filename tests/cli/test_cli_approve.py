"""Headless approvals and messages on standard input: `--approve`/`--deny` answer a
step pending in a session's checkpoint, even one left by a process killed while it asked."""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from birdie_tui.cli.headless import _answers
from birdie_tui.service import BirdieError
from birdie_tui.service.rows import ApprovalRequest

from ..agent.conftest import SKILLS
from ..conftest import clean_env
from .helpers import events_of, run_cli

pytestmark = pytest.mark.integration

# The agent tests' guarded skill, gated by a declared capability (upstream Birdie's rule)
# instead of `require_approval`.
GUARDED = textwrap.dedent(SKILLS["guarded/SKILL.MD"]).lstrip().replace(
    "require_approval: true", "- local_shell")

# A front end whose dialog is open: the approver never answers. Killed with SIGKILL there.
ASKING = textwrap.dedent("""
    import asyncio, sys
    from birdie_tui.service import local_birdie

    async def main():
        birdie = local_birdie(skills_dirs=[sys.argv[1]])
        await birdie.start()
        async def approver(request):
            print("ASKING", birdie.status().session_id, request.id, flush=True)
            await asyncio.Event().wait()
        async for _ in birdie.send(sys.argv[2], approver=approver):
            pass
        print("NOT ASKED", flush=True)  # the test fails on this line instead of waiting
        await birdie.close()

    asyncio.run(main())
""")


@pytest.fixture
def skills(tmp_path) -> Path:
    folder = tmp_path / "skills" / "guarded"
    folder.mkdir(parents=True)
    (folder / "SKILL.MD").write_text(GUARDED)
    return tmp_path / "skills"


def test_an_approval_asked_by_a_killed_process_is_answered_from_print(isolated_home, skills,
                                                                      tmp_path):
    """A process killed (SIGKILL) while its dialog was open leaves the step in the session;
    `--print --session-id SID --approve CALL_ID` runs the call and finishes the turn."""
    canary = tmp_path / "canary"
    message = "call touch_file " + json.dumps({"path": str(canary)})
    proc = subprocess.Popen([sys.executable, "-c", ASKING, str(skills), message],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(isolated_home))
    try:
        line = proc.stdout.readline()
        assert line.startswith("ASKING"), proc.stderr.read()
        _, sid, call_id = line.split()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert not canary.exists()

    answered = run_cli(isolated_home, "--print", "--session-id", sid, "--approve", call_id,
                       "--output-format", "stream-json", "--skills-dir", str(skills))
    assert answered.returncode == 0, answered.stderr
    events = events_of(answered)
    assert [e["decision"] for e in events if e["type"] == "approval"] == ["approved"]
    assert events[-1]["type"] == "done" and canary.exists()
    # One user turn in the session, counted once.
    listed = run_cli(isolated_home, "sessions", "list", "--json")
    assert [row["turns"] for row in json.loads(listed.stdout) if row["id"] == sid] == [1]


def test_usage_errors_of_approve_and_deny(isolated_home, skills):
    """--approve/--deny need --print and a session, take no message, and name only pending calls."""
    no_session = run_cli(isolated_home, "--print", "--approve", "all")
    assert no_session.returncode == 2 and "--session-id" in no_session.stderr
    with_message = run_cli(isolated_home, "--print", "hi", "--session-id", "2026-01-01_1",
                           "--approve", "all")
    assert with_message.returncode == 2 and "another --print" in with_message.stderr
    waiting = run_cli(isolated_home, "--print", 'call touch_file {"path": "x"}',
                      "--skills-dir", str(skills), "--output-format", "stream-json")
    assert waiting.returncode == 4
    sid = events_of(waiting)[0]["id"]
    unknown = run_cli(isolated_home, "--print", "--session-id", sid, "--approve", "call_nope",
                      "--skills-dir", str(skills))
    assert unknown.returncode == 2 and "no pending call 'call_nope'; waiting: " in unknown.stderr


def test_every_pending_call_needs_an_answer():
    """Every pending call needs an answer; `all` covers the rest, an explicit id wins over `all`."""
    pending = [ApprovalRequest(id="a", name="t", args={}), ApprovalRequest(id="b", name="u", args={})]

    def ns(approve=(), deny=()):
        return argparse.Namespace(approve=list(approve), deny=list(deny))

    with pytest.raises(BirdieError, match="still waiting: b"):
        _answers(pending, ns(approve=["a"]))
    answers = _answers(pending, ns(approve=["a"], deny=["all"]))
    assert (answers["a"].decision, answers["b"].decision) == ("allow", "deny")
    answers = _answers(pending, ns(approve=["all"], deny=["b"]))
    assert (answers["a"].decision, answers["b"].decision) == ("allow", "deny")


def test_a_message_beyond_the_argument_limit_comes_on_stdin(isolated_home):
    """`--print -` reads the message from standard input: 140 KB, beyond the 128 KiB a single
    argument may hold (two-byte characters, so it still fits the offline model's window)."""
    message = "start " + "é" * 70_000 + " end"
    env = clean_env(isolated_home)
    proc = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--print", "-",
                           "--output-format", "stream-json"], input=message, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(message.encode()) > 128 * 1024
    assert "70,010 characters" in events_of(proc)[-1]["text"]
    piped = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--print"],
                           input="from a pipe", env=env, capture_output=True, text=True,
                           timeout=120)
    assert piped.returncode == 0 and "from a pipe" in piped.stdout
    empty = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--print", "-"],
                           input="  \n", env=env, capture_output=True, text=True, timeout=120)
    assert empty.returncode == 2 and "empty" in empty.stderr
