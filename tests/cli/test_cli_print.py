"""`birdie-tui --print`: real subprocesses, the offline model, the real session store
(docs/contracts.md: command line, stream-json events)."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ..agent.conftest import write_skills
from ..conftest import clean_env
from .helpers import USER, assert_one_line_error, events_of, run_cli, session_json

pytestmark = pytest.mark.integration

# DESIGN §3.2: the exact keys of every event, `type` first.
EVENT_KEYS = {
    "session": ["type", "id", "new"],
    "injected": ["type", "skills", "turn", "call", "segments", "evicted", "not_loaded"],
    "token": ["type", "text"],
    "tool_call": ["type", "id", "name", "args"],
    "tool_result": ["type", "id", "name", "content", "error"],
    "approval": ["type", "id", "name", "decision"],
    "usage": ["type", "input_tokens", "output_tokens"],
    "done": ["type", "text"],
    "error": ["type", "message"],
}


def check_contract(proc, code: int = 0) -> list[dict]:
    """Exit `code` (0), no traceback, every line one JSON object with `type` first and exactly
    the keys of its event type."""
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    for line in proc.stdout.splitlines():
        assert line.startswith('{"type": '), line
    events = events_of(proc)
    for event in events:
        assert event["type"] in EVENT_KEYS, event
        keys = EVENT_KEYS[event["type"]]
        if event["type"] == "approval" and event.get("decision") == "pending":
            keys = [*keys, "args"]  # a headless turn that stopped to ask
        assert list(event) == keys, event
        if event["type"] == "injected":
            for skill in event["skills"]:
                assert list(skill) == ["name", "reason", "tokens"]
                assert isinstance(skill["tokens"], int) and skill["tokens"] > 0
                reason = skill["reason"]
                assert reason in ("always_inject", "loaded") or reason.startswith("trigger:")
        if event["type"] == "usage":
            assert isinstance(event["input_tokens"], int) and event["input_tokens"] > 0
            assert isinstance(event["output_tokens"], int) and event["output_tokens"] >= 0
    return events


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def first(events: list[dict], kind: str) -> dict:
    return next(e for e in events if e["type"] == kind)


def session_files(home: Path) -> list[str]:
    folder = home / "sessions" / USER
    return sorted(p.name for p in folder.glob("*.json")) if folder.is_dir() else []


@pytest.fixture
def skills(tmp_path) -> Path:
    return write_skills(tmp_path / "skills")


# ------------------------------------------------------------------------------- text mode
def test_print_text_mode_prints_the_reply(isolated_home):
    """Text-mode --print prints exactly the stored reply, and stderr says how to resume."""
    proc = run_cli(isolated_home, "--print", "hello")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "hello" in proc.stdout
    assert not proc.stdout.lstrip().startswith("{")  # text, not events

    # The reply printed is exactly the assistant message stored in the new session, and
    # stderr says exactly how to come back to it.
    [name] = session_files(isolated_home)
    assert proc.stderr.splitlines() == [f"Resume this session: birdie-tui --session-id {name[:-5]}"]
    exported = run_cli(isolated_home, "sessions", "export", name[:-5], "--format", "json")
    assert exported.returncode == 0, exported.stderr
    messages = json.loads(exported.stdout)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == "hello"
    assert proc.stdout.rstrip("\n") == messages[1]["content"].rstrip("\n")


# ------------------------------------------------------------------------------- stream-json
def test_stream_json_plain_turn(isolated_home):
    """A plain stream-json turn is session, injected, tokens, one usage, then done."""
    proc = run_cli(isolated_home, "--print", "hello", "--output-format", "stream-json")
    events = check_contract(proc)
    seq = kinds(events)
    assert seq[0] == "session"
    assert events[0]["new"] is True
    assert isinstance(events[0]["id"], str) and events[0]["id"]
    assert seq[1] == "injected"
    assert seq[-1] == "done"
    assert seq.count("usage") == 1
    assert seq.index("usage") < seq.index("done")
    assert seq.count("token") > 3
    assert set(seq) == {"session", "injected", "token", "usage", "done"}
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert events[-1]["text"] == tokens
    # The bundled `planning` skill is always injected.
    assert {"name": "planning", "reason": "always_inject"}.items() <= \
        first(events, "injected")["skills"][0].items()
    assert session_files(isolated_home) == [f"{events[0]['id']}.json"]


def test_stream_json_reports_trigger_injection(isolated_home, skills):
    """The injected event names the skills a trigger phrase brought in, with their reasons."""
    proc = run_cli(isolated_home, "--print", "how do I reach a Remote Server?",
                   "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(proc)
    injected = {s["name"]: s["reason"] for s in first(events, "injected")["skills"]}
    assert injected == {"planner": "always_inject", "ssh": "trigger:remote server"}


def test_stream_json_tool_call_round_trip(isolated_home, skills):
    """A stream-json tool call round trip emits its events in order with matching ids."""
    proc = run_cli(isolated_home, "--print", 'call echo_text {"text":"hi"}',
                   "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(proc)
    seq = kinds(events)
    assert seq[0] == "session" and seq[-1] == "done"
    assert seq.count("tool_call") == 1 and seq.count("tool_result") == 1
    assert seq.count("usage") == 2  # one per model call: the call, then the summary
    assert seq.count("injected") == 2
    call, result = first(events, "tool_call"), first(events, "tool_result")
    assert seq.index("usage") < seq.index("tool_call") < seq.index("tool_result") \
        < len(seq) - 1 - seq[::-1].index("usage") < seq.index("done")
    assert call["name"] == "echo_text" and call["args"] == {"text": "hi"}
    assert isinstance(call["id"], str) and call["id"]
    assert result == {"type": "tool_result", "id": call["id"], "name": "echo_text",
                      "content": "hi", "error": False}
    assert "hi" in events[-1]["text"]
    assert "approval" not in seq


def test_stream_json_failing_tool_is_an_error_result_not_a_failure(isolated_home, skills):
    """A failing tool is an error tool_result in stream-json, and the run still ends with done."""
    proc = run_cli(isolated_home, "--print", "call fail_hard",
                   "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(proc)
    result = first(events, "tool_result")
    assert result["name"] == "fail_hard" and result["error"] is True
    assert "broken" in result["content"]
    assert kinds(events)[-1] == "done"


def test_skill_file_problems_warn_on_stderr_and_keep_stdout_json(isolated_home, skills):
    """Broken skill files warn on stderr while stdout stays pure stream-json events."""
    bad = skills / "broken" / "SKILL.MD"
    bad.parent.mkdir()
    bad.write_text("---\nname: [unclosed\n---\n")
    proc = run_cli(isolated_home, "--print", 'call echo_text {"text":"still"}',
                   "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(proc)  # every stdout line is still an event
    assert first(events, "tool_result")["content"] == "still"
    assert "warning" in proc.stderr and "skills check" in proc.stderr


# ------------------------------------------------------------------------------- sessions
def test_session_id_continues_the_session(isolated_home):
    """A --session-id run continues that session: one session, two turns, both messages."""
    one = check_contract(run_cli(isolated_home, "--print", "first message",
                                 "--output-format", "stream-json"))
    sid = one[0]["id"]
    two = check_contract(run_cli(isolated_home, "--print", "second message", "--session-id",
                                 sid, "--output-format", "stream-json"))
    assert two[0] == {"type": "session", "id": sid, "new": False}
    assert kinds(two)[-1] == "done"

    listing = run_cli(isolated_home, "sessions", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    rows = json.loads(listing.stdout)
    assert [r["id"] for r in rows] == [sid]  # no second session was made
    assert rows[0]["turns"] == 2
    assert rows[0]["title"] == "first message"
    assert rows[0]["input_tokens"] > 0 and rows[0]["output_tokens"] > 0

    exported = json.loads(run_cli(isolated_home, "sessions", "export", sid,
                                  "--format", "json").stdout)
    users = [m["content"] for m in exported["messages"] if m["role"] == "user"]
    assert users == ["first message", "second message"]


def test_session_id_text_mode_continues_too(isolated_home):
    """A --session-id run continues the session in text mode too."""
    first_run = run_cli(isolated_home, "--print", "alpha")
    assert first_run.returncode == 0, first_run.stderr
    [name] = session_files(isolated_home)
    again = run_cli(isolated_home, "--print", "beta", "--session-id", name[:-5])
    assert again.returncode == 0, again.stderr
    assert "beta" in again.stdout
    assert session_files(isolated_home) == [name]
    assert session_json(isolated_home, name[:-5])["turns"] == 2


@pytest.mark.parametrize("bad_id", ["2020-01-01_7", "bogus", "../../etc/passwd", "2020-01-01_"])
@pytest.mark.parametrize("fmt", ["text", "stream-json"])
def test_unknown_or_invalid_session_id_is_one_line(isolated_home, bad_id, fmt):
    """An unknown or malformed --session-id is a one-line error that creates nothing."""
    proc = run_cli(isolated_home, "--print", "hi", "--session-id", bad_id,
                   "--output-format", fmt)
    line = assert_one_line_error(proc)
    assert bad_id in line
    assert proc.stdout == ""
    assert session_files(isolated_home) == []  # nothing was created


# ------------------------------------------------------------------------------- approval
def _canary_message(canary: Path) -> str:
    return "call touch_file " + json.dumps({"path": str(canary)})


def test_approval_required_tool_waits_without_auto_approve(isolated_home, skills, tmp_path):
    """Without --auto-approve a guarded tool is not run: the turn stops with a pending approval
    event and exit 4, the session keeps the step, and `--approve CALL_ID` in another process
    runs the tool and finishes the turn."""
    canary = tmp_path / "canary"
    proc = run_cli(isolated_home, "--print", _canary_message(canary),
                   "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(proc, code=4)
    seq = kinds(events)
    call, approval = first(events, "tool_call"), first(events, "approval")
    assert approval == {"type": "approval", "id": call["id"], "name": "touch_file",
                        "decision": "pending", "args": {"path": str(canary)}}
    assert seq[-1] == "approval" and "tool_result" not in seq and "done" not in seq
    assert f"--approve {call['id']}" in proc.stderr
    assert not canary.exists()

    sid = first(events, "session")["id"]
    resumed = run_cli(isolated_home, "--print", "--session-id", sid, "--approve", call["id"],
                      "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(resumed)
    assert first(events, "approval") == {"type": "approval", "id": call["id"],
                                         "name": "touch_file", "decision": "approved"}
    assert first(events, "tool_result")["error"] is False
    assert kinds(events)[-1] == "done" and canary.exists()
    # Answered: nothing is pending any more.
    again = run_cli(isolated_home, "--print", "--session-id", sid, "--approve", "all",
                    "--skills-dir", str(skills))
    assert again.returncode == 2 and "no tool call waiting" in again.stderr


def test_approval_required_tool_runs_with_auto_approve(isolated_home, skills, tmp_path):
    """With --auto-approve a guarded tool is approved and runs."""
    canary = tmp_path / "canary"
    proc = run_cli(isolated_home, "--print", _canary_message(canary), "--auto-approve",
                   "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(proc)
    call, approval, result = (first(events, k) for k in ("tool_call", "approval", "tool_result"))
    assert approval == {"type": "approval", "id": call["id"], "name": "touch_file",
                        "decision": "approved"}
    assert result["error"] is False
    assert canary.exists()


def test_approval_in_text_mode_waits_and_deny_answers_it(isolated_home, skills, tmp_path):
    """Text mode stops for approval too (exit 4, the resume command on stderr); `--deny all`
    answers it: the tool never runs, the model hears the denial, the history stays valid."""
    canary = tmp_path / "canary"
    proc = run_cli(isolated_home, "--print", _canary_message(canary), "--skills-dir", str(skills))
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr.startswith("birdie-tui: approval needed: touch_file ")
    sid = re.search(r"--session-id (\S+)", proc.stderr).group(1)
    denied = run_cli(isolated_home, "--print", "--session-id", sid, "--deny", "all",
                     "--skills-dir", str(skills))
    assert denied.returncode == 0, denied.stderr
    assert "denied" in denied.stdout
    assert not canary.exists()

def test_enable_binds_a_default_off_skill_and_persists(isolated_home, skills):
    """The --enable flag binds a default-off skill and saves the grant for later runs."""
    off = check_contract(run_cli(isolated_home, "--print", "call hush",
                                 "--output-format", "stream-json", "--skills-dir", str(skills)))
    assert "tool_call" not in kinds(off)
    assert "not available" in off[-1]["text"]
    assert session_json(isolated_home, off[0]["id"])["enabled_skills"] == []

    on = check_contract(run_cli(isolated_home, "--print", "call hush", "--enable", "Quiet",
                                "--output-format", "stream-json", "--skills-dir", str(skills)))
    assert first(on, "tool_call")["name"] == "hush"
    assert first(on, "tool_result")["error"] is False
    sid = on[0]["id"]
    data = session_json(isolated_home, sid)
    assert data["enabled_skills"] == ["Quiet"] and data["disabled_skills"] == []

    # The grant is the session's: continuing without --enable keeps it.
    again = check_contract(run_cli(isolated_home, "--print", "call hush", "--session-id", sid,
                                   "--output-format", "stream-json", "--skills-dir", str(skills)))
    assert first(again, "tool_call")["name"] == "hush"


def test_disable_unbinds_and_persists(isolated_home, skills):
    """The --disable flag unbinds a skill and saves it; a later --enable moves the grant back."""
    proc = run_cli(isolated_home, "--print", 'call echo_text {"text":"x"}', "--disable", "Echoer",
                   "--output-format", "stream-json", "--skills-dir", str(skills))
    events = check_contract(proc)
    assert "tool_call" not in kinds(events)
    sid = events[0]["id"]
    data = session_json(isolated_home, sid)
    assert data["disabled_skills"] == ["Echoer"] and data["enabled_skills"] == []

    # Re-enabling on an existing session moves the grant and persists it.
    back = check_contract(run_cli(isolated_home, "--print", 'call echo_text {"text":"x"}',
                                  "--session-id", sid, "--enable", "Echoer",
                                  "--output-format", "stream-json", "--skills-dir", str(skills)))
    assert first(back, "tool_result")["content"] == "x"
    data = session_json(isolated_home, sid)
    assert data["enabled_skills"] == ["Echoer"] and data["disabled_skills"] == []


def test_enable_unknown_skill_is_one_line_and_creates_no_session(isolated_home, skills):
    """Enabling an unknown skill is a one-line error that creates no session."""
    proc = run_cli(isolated_home, "--print", "hi", "--enable", "NoSuchSkill",
                   "--skills-dir", str(skills))
    assert "NoSuchSkill" in assert_one_line_error(proc)
    assert proc.stdout == ""
    assert session_files(isolated_home) == []


# ------------------------------------------------------------------------------- providers
def test_openai_without_key_is_one_line(isolated_home):
    """OpenAI without OPENAI_API_KEY is a one-line error that never prints or stores other keys."""
    secret = "sk-ant-never-print-me-0123456789"
    proc = run_cli(isolated_home, "--print", "hi",
                   env={"LLM_VENDOR": "openai", "ANTHROPIC_API_KEY": secret})
    line = assert_one_line_error(proc)
    assert "OPENAI_API_KEY" in line
    assert proc.stdout == ""
    assert secret not in proc.stderr
    assert session_files(isolated_home) == []
    for path in isolated_home.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_openai_without_key_stream_json_is_one_line_too(isolated_home):
    """OpenAI without a key is a one-line error in stream-json mode too."""
    proc = run_cli(isolated_home, "--print", "hi", "--output-format", "stream-json",
                   env={"LLM_VENDOR": "openai"})
    assert "OPENAI_API_KEY" in assert_one_line_error(proc)


# ------------------------------------------------------------------------------- skill folders
EXTRA_SKILL = """
    ---
    name: Extra
    description: A skill from a second folder.
    ---

    ## Tools

    ### extra_tool
    description: Say extra.
    entrypoint: bash:printf extra
    schema: {type: object, properties: {}}
    """


@pytest.fixture
def extra(tmp_path) -> Path:
    path = tmp_path / "extra" / "extra" / "SKILL.MD"
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(EXTRA_SKILL).lstrip())
    return path.parent.parent


def _bound_result(home: Path, message: str, *args: str, env=None) -> dict | None:
    events = check_contract(run_cli(home, "--print", message, "--output-format", "stream-json",
                                    *args, env=env))
    return next((e for e in events if e["type"] == "tool_result"), None)


def test_birdie_skills_dir_env_replaces_the_default_folders(isolated_home, skills, extra):
    """BIRDIE_SKILLS_DIR (several folders) replaces the bundled skills for runs and checks."""
    env = {"BIRDIE_SKILLS_DIR": os.pathsep.join([str(skills), str(extra)])}
    assert _bound_result(isolated_home, "call extra_tool", env=env)["content"] == "extra"
    assert _bound_result(isolated_home, 'call echo_text {"text":"a"}', env=env)["content"] == "a"
    # The bundled skills are not loaded.
    assert _bound_result(isolated_home, 'call list_files {"path":"."}', env=env) is None
    assert _bound_result(isolated_home, 'call list_files {"path":"."}') is not None

    check = run_cli(isolated_home, "skills", "check", "--json", env=env)
    assert check.returncode == 0, check.stderr
    names = {s["name"] for s in json.loads(check.stdout)["skills"]}
    assert names == {"Echoer", "Guarded", "ssh", "planner", "Quiet", "helper", "Extra"}


def test_skills_dir_flag_is_repeatable_and_replaces_defaults(isolated_home, skills, extra):
    """The --skills-dir flag can be repeated and replaces the bundled skills."""
    args = ("--skills-dir", str(skills), "--skills-dir", str(extra))
    assert _bound_result(isolated_home, "call extra_tool", *args)["content"] == "extra"
    assert _bound_result(isolated_home, 'call echo_text {"text":"b"}', *args)["content"] == "b"
    assert _bound_result(isolated_home, 'call list_files {"path":"."}', *args) is None


def test_skills_dir_flag_wins_over_the_environment(isolated_home, skills, extra):
    """The --skills-dir flag wins over BIRDIE_SKILLS_DIR."""
    env = {"BIRDIE_SKILLS_DIR": str(extra)}
    args = ("--skills-dir", str(skills))
    assert _bound_result(isolated_home, 'call echo_text {"text":"c"}', *args, env=env) is not None
    assert _bound_result(isolated_home, "call extra_tool", *args, env=env) is None


# ------------------------------------------------------------------------------- closed stdout
def test_closed_stdout_ends_quietly_and_leaves_a_valid_session(isolated_home):
    """`birdie-tui --print ... --output-format stream-json | head -1`: the reader goes away
    mid-turn. One line on stderr, no traceback, and the session stays usable."""
    env = clean_env(isolated_home)
    env["BIRDIE_OFFLINE_TPS"] = "20"  # the turn is still streaming when the pipe closes
    proc = subprocess.Popen(
        [sys.executable, "-m", "birdie_tui.cli", "--print", "hello",
         "--output-format", "stream-json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    first_line = json.loads(proc.stdout.readline())
    proc.stdout.close()
    stderr = proc.stderr.read()
    proc.wait(60)
    assert first_line["type"] == "session"
    assert proc.returncode != 0
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert stderr.strip().splitlines() == ["birdie-tui: output closed (broken pipe)"]

    sid = first_line["id"]
    exported = json.loads(run_cli(isolated_home, "sessions", "export", sid,
                                  "--format", "json").stdout)
    assert [m["role"] for m in exported["messages"]] == ["user", "assistant"]
    assert "[interrupted]" in exported["messages"][1]["content"]
    again = run_cli(isolated_home, "--print", "still there?", "--session-id", sid)
    assert again.returncode == 0, again.stderr
    assert "still there?" in again.stdout
