"""`birdie-tui agents run NAME` in a real subprocess on the offline model: a run now, with
--print's output and exit statuses (0 done, 3 a call waiting for approval, 2 bad usage), its
record in the run log; a pending run answered later with `--print --approve all` is settled."""

from __future__ import annotations

import json
import textwrap

import pytest

from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import SqliteRunLog

from ..agent.conftest import write_agents, write_skills
from .helpers import USER, run_cli

pytestmark = pytest.mark.integration

COUNTER = """
    ---
    name: Counter
    description: Counts to a number.
    ---

    ## Input

    ### upto
    type: integer

    ### loud
    type: boolean
    required: false

    ## Prompt

    Count to {{ upto }} (loud: {{ loud }}).
    """


@pytest.fixture
def dirs(tmp_path) -> list[str]:
    agents = write_agents(tmp_path / "agents", {"counter": COUNTER})
    return ["--skills-dir", str(write_skills(tmp_path / "skills")),
            "--agents-dir", str(agents)]


def records(home) -> list:
    log = SqliteRunLog(BirdiePaths(home=home), USER)
    try:
        return log.list()
    finally:
        log.close()


def test_a_run_prints_its_answer_and_records_it(isolated_home, dirs):
    """Exit 0, the answer on stdout, the record done under "<agent>:manual", its session
    named on stderr with how to open it; inputs typed as the agent declares them."""
    done = run_cli(isolated_home, "agents", "run", "Counter", "--input", "upto=3",
                   "--input", "loud=yes", *dirs)
    assert done.returncode == 0, done.stderr
    assert "Count to 3 (loud: True)." in done.stdout
    (record,) = records(isolated_home)
    assert (record.status, record.trigger_key, record.trigger) == ("done", "Counter:manual",
                                                                    "manual")
    assert f"run {record.run_id} done: birdie-tui --session-id {record.session_id}" \
        in done.stderr


def test_json_output_is_prints_object_with_the_run_id_and_stream_json_its_events(isolated_home, dirs):
    """--output-format json: --print's one object, plus "run_id"; stream-json: the session,
    then the turn's events, as --print writes them."""
    done = run_cli(isolated_home, "agents", "run", "Repeater", "--input", "text=hi",
                   "--output-format", "json", *dirs)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    (record,) = records(isolated_home)[-1:]
    assert result["run_id"] == record.run_id and result["session_id"] == record.session_id
    assert result["type"] == "result" and "Please repeat: hi" in result["result"]
    assert result["usage"]["input_tokens"] > 0
    streamed = run_cli(isolated_home, "agents", "run", "Repeater", "--input", "text=hi",
                       "--output-format", "stream-json", *dirs)
    events = [json.loads(line) for line in streamed.stdout.splitlines()]
    assert events[0]["type"] == "session" and events[-1]["type"] == "done"


def test_a_pending_run_exits_4_and_is_answered_later_with_approve(isolated_home, dirs,
                                                                  tmp_path):
    """A call that needs approval: exit 4 as `--print`, the `not run:` line saying how to answer; the
    `--print --approve all` it names runs the call and settles the record done."""
    canary = tmp_path / "canary"
    waiting = run_cli(isolated_home, "agents", "run", "Toucher", "--input",
                      f"path={canary}", *dirs)
    assert waiting.returncode == 4, waiting.stderr
    (record,) = records(isolated_home)
    assert record.status == "pending" and not canary.exists()
    line = next(l for l in waiting.stderr.splitlines() if l.startswith("birdie-tui: not run:"))
    assert "touch_file" in line
    assert f"birdie-tui --session-id {record.session_id} --print --approve all" in line

    answered = run_cli(isolated_home, "--print", "--session-id", record.session_id,
                       "--approve", "all", *dirs)
    assert answered.returncode == 0, answered.stderr
    assert canary.exists()
    (settled,) = records(isolated_home)
    assert settled.status == "done" and settled.answer


@pytest.mark.parametrize(("args", "said"), [
    (["Nobody"], "unknown agent 'Nobody'; the agent folders hold: "),
    (["Counter"], "the agent Counter needs --input upto=VALUE (upto is required)"),
    (["Counter", "--input", "upto=three"], "--input upto='three': not an integer"),
    (["Counter", "--input", "upto=3", "--input", "loud=perhaps"],
     "--input loud='perhaps': not a boolean"),
    (["Counter", "--input", "upto=3", "--input", "colour=red"],
     "the agent Counter has no input 'colour' (its inputs: upto, loud)"),
    (["Counter", "--input", "upto"], "--input 'upto': expected NAME=VALUE"),
])
def test_bad_usage_is_exit_2_with_one_line(isolated_home, dirs, args, said):
    """An unknown agent (the line lists those there are) or a bad --input: exit 2, one line,
    nothing run, nothing recorded."""
    bad = run_cli(isolated_home, "agents", "run", *args, *dirs)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [f"birdie-tui: {said}"] or \
        bad.stderr.startswith(f"birdie-tui: {said}"), bad.stderr
    assert "Traceback" not in bad.stderr
    assert records(isolated_home) == []
    if args == ["Nobody"]:
        assert "Counter" in bad.stderr and "Repeater" in bad.stderr


def test_sigterm_cancels_the_run_and_records_it(isolated_home, dirs):
    """SIGTERM while the run's tool runs: exit 143, the record cancelled, its session kept."""
    import signal
    import subprocess
    import sys
    import time

    from ..conftest import clean_env

    proc = subprocess.Popen([sys.executable, "-m", "birdie_tui.cli", "agents", "run",
                             "Sleeper", "--approval", "auto", *dirs],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(isolated_home))
    try:
        deadline = time.monotonic() + 60
        while not (isolated_home / "slow.started").exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, stderr
    assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr
    (record,) = records(isolated_home)
    assert record.status == "cancelled" and record.session_id and record.finished_at
