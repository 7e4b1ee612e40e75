"""`birdie-tui` never loses the user's work: real subprocesses against a real BIRDIE_HOME.

--continue / --version, the resume command, recovery notices, a damaged history database,
bad start inputs, and exit statuses (0 ok, 1 turn failed, 2 bad input, 3 approval refused).
"""

from __future__ import annotations

import json
from datetime import date
from importlib.metadata import version
from pathlib import Path

import pytest

from birdie_tui.store import BirdiePaths, SessionStore

from ..agent.conftest import write_skills
from .helpers import USER, assert_one_line_error, events_of, run_cli, session_json

pytestmark = pytest.mark.integration

RESUME = "Resume this session: birdie-tui --session-id "


def user_dir(home: Path, user: str = USER) -> Path:
    return home / "sessions" / user


def session_ids(home: Path, user: str = USER) -> list[str]:
    folder = user_dir(home, user)
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def stream(home: Path, *args: str) -> list[dict]:
    proc = run_cli(home, "--print", *args, "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    return events_of(proc)


@pytest.fixture
def skills(tmp_path) -> Path:
    return write_skills(tmp_path / "skills")


# ------------------------------------------------------------------------------- --version
def test_version_prints_the_installed_version(isolated_home):
    """The --version flag prints the installed version and creates no sessions."""
    proc = run_cli(isolated_home, "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"birdie-tui {version('birdie-tui')}\n"
    assert not (isolated_home / "sessions").exists()


# ------------------------------------------------------------------------------- --continue
def test_continue_reopens_the_most_recent_session(isolated_home):
    """Both --continue and -c reopen the most recent session."""
    first = stream(isolated_home, "first")[0]["id"]
    second = stream(isolated_home, "second")[0]["id"]
    assert first != second
    for flag in ("--continue", "-c"):
        events = stream(isolated_home, "more", flag)
        assert events[0] == {"type": "session", "id": second, "new": False}
    assert session_json(isolated_home, second)["turns"] == 3
    assert session_ids(isolated_home) == sorted([first, second])


def test_continue_skips_empty_sessions_and_starts_one_when_there_is_none(isolated_home):
    """Continuing skips empty sessions and starts a new one when there is none."""
    events = stream(isolated_home, "nothing yet", "-c")
    assert events[0]["new"] is True
    worked = events[0]["id"]
    # An empty session file (an older version left it) is newer, but is not real work.
    SessionStore(BirdiePaths(isolated_home), USER).create()
    assert stream(isolated_home, "again", "-c")[0] == {"type": "session", "id": worked,
                                                       "new": False}


def test_continue_with_session_id_is_a_usage_error(isolated_home):
    """Combining --continue with --session-id is a usage error (exit 2) that creates nothing."""
    proc = run_cli(isolated_home, "--print", "hi", "-c", "--session-id", "2026-01-01_1")
    assert proc.returncode == 2
    assert "--continue and --session-id cannot be used together" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert session_ids(isolated_home) == []


# ------------------------------------------------------------------------------- resume hint
def test_text_mode_prints_the_resume_command_with_the_user(isolated_home):
    """Text mode prints a resume command, with --user, that really resumes the session."""
    proc = run_cli(isolated_home, "--print", "hello", "--user", "alice")
    assert proc.returncode == 0, proc.stderr
    [sid] = session_ids(isolated_home, "alice")
    assert proc.stderr.splitlines() == [f"{RESUME}{sid} --user alice"]
    assert RESUME not in proc.stdout
    # The printed command really resumes it.
    again = run_cli(isolated_home, "--print", "and again",
                    *proc.stderr.split("birdie-tui ", 1)[1].split())
    assert again.returncode == 0, again.stderr
    assert session_ids(isolated_home, "alice") == [sid]
    assert json.loads((user_dir(isolated_home, "alice") / f"{sid}.json").read_text())["turns"] == 2


def test_stream_json_prints_no_resume_command(isolated_home):
    """Stream-json mode prints no resume line: stderr is empty and stdout all JSON."""
    proc = run_cli(isolated_home, "--print", "hello", "--output-format", "stream-json")
    assert proc.returncode == 0 and proc.stderr == ""
    assert all(line.startswith('{"type": ') for line in proc.stdout.splitlines())


# ------------------------------------------------------------------------------- no empty sessions
@pytest.mark.parametrize("args", [
    ("--session-id", "2020-01-01_9"),        # unknown
    ("--enable", "NoSuchSkill"),             # unknown skill
    ("--disable", "NoSuchSkill"),
])
def test_bad_start_inputs_create_nothing(isolated_home, skills, args):
    """An unknown session id or skill is a one-line error that creates or changes nothing."""
    before = stream(isolated_home, "existing work", "--skills-dir", str(skills))[0]["id"]
    proc = run_cli(isolated_home, "--print", "hi", *args, "--skills-dir", str(skills))
    assert_one_line_error(proc)
    assert proc.stdout == ""
    assert session_ids(isolated_home) == [before]
    assert session_json(isolated_home, before)["turns"] == 1


def test_unknown_skill_on_an_existing_session_changes_nothing(isolated_home, skills):
    """An unknown skill among grants leaves an existing session's file unchanged."""
    sid = stream(isolated_home, "hi", "--skills-dir", str(skills))[0]["id"]
    saved = session_json(isolated_home, sid)
    proc = run_cli(isolated_home, "--print", "hi", "--session-id", sid, "--enable", "Quiet",
                   "--enable", "Nope", "--skills-dir", str(skills))
    assert "Nope" in assert_one_line_error(proc)
    assert session_json(isolated_home, sid) == saved


def test_corrupt_session_file_is_reported_and_moved_aside(isolated_home):
    """A corrupt session file is announced, moved aside and refused (exit 2); its id stays used."""
    sid = stream(isolated_home, "hello")[0]["id"]
    path = user_dir(isolated_home) / f"{sid}.json"
    path.write_text('{"id": "cut')
    proc = run_cli(isolated_home, "--print", "hi", "--session-id", sid)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    recovered, error = proc.stderr.splitlines()  # the notice as it happens, then the refusal
    [aside] = list(path.parent.glob(f"{sid}.json.corrupt-*"))
    assert recovered.startswith(f"birdie-tui: recovered: session file {sid}.json was corrupt")
    assert str(aside) in recovered
    assert error == (f"birdie-tui: session {sid!r} cannot be opened: its file was corrupt "
                     "and has been moved aside")
    assert session_ids(isolated_home) == []
    # Its id is not handed out again.
    assert stream(isolated_home, "new")[0]["id"] != sid


# ------------------------------------------------------------------------------- recovery
def test_corrupt_memory_is_announced_on_stderr_and_the_turn_runs(isolated_home):
    """Corrupt memory is announced on stderr and in the log, and the turn still runs."""
    folder = user_dir(isolated_home)
    folder.mkdir(parents=True)
    (folder / "memory.json").write_text("{\"entries\": [")
    proc = run_cli(isolated_home, "--print", "hi", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("birdie-tui: recovered: memory file memory.json was corrupt")
    assert events_of(proc)[-1]["type"] == "done"
    log = (isolated_home / "logs" / "birdie-tui.log").read_text()
    assert "memory file memory.json was corrupt" in log


def test_sessions_list_announces_a_corrupt_file_once(isolated_home):
    """Listing sessions announces a corrupt session file once and lists the rest."""
    sid = stream(isolated_home, "hello")[0]["id"]
    keep = stream(isolated_home, "other")[0]["id"]
    (user_dir(isolated_home) / f"{sid}.json").write_text("[")
    proc = run_cli(isolated_home, "sessions", "list", "--json")
    assert proc.returncode == 0
    assert [r["id"] for r in json.loads(proc.stdout)] == [keep]
    [line] = proc.stderr.splitlines()
    assert line.startswith(f"birdie-tui: recovered: session file {sid}.json was corrupt")


def test_sessions_list_hides_empty_sessions(isolated_home):
    """Listing sessions hides empty ones, which --session-id can still open."""
    store = SessionStore(BirdiePaths(isolated_home), USER)
    store.create(date(2026, 1, 2))  # e.g. left by an older birdie-tui that quit at once
    sid = stream(isolated_home, "real")[0]["id"]
    listed = json.loads(run_cli(isolated_home, "sessions", "list", "--json").stdout)
    assert [r["id"] for r in listed] == [sid]
    # --session-id still opens the empty one.
    events = stream(isolated_home, "now it has a turn", "--session-id", "2026-01-02_1")
    assert events[0] == {"type": "session", "id": "2026-01-02_1", "new": False}


# ------------------------------------------------------------------------------- checkpoints.db
def _damage(home: Path, how: str) -> Path:
    db = user_dir(home) / "checkpoints.db"
    if how == "garbage":
        db.parent.mkdir(parents=True, exist_ok=True)
        db.write_bytes(b"\x00garbage\xff" * 4000)
    else:
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 2])
    return db


@pytest.mark.parametrize("how", ["garbage", "truncated"])
@pytest.mark.parametrize("fmt", ["text", "stream-json"])
def test_damaged_history_database_never_kills_a_run(isolated_home, how, fmt):
    """A damaged history database is announced and moved aside; the run goes on, never hangs."""
    if how == "truncated":
        stream(isolated_home, "padding " * 3000)  # enough history for a multi-page database
    db = _damage(isolated_home, how)
    # A timeout, not a timing assertion: before the fix this run hung forever.
    proc = run_cli(isolated_home, "--print", "still here?", "--output-format", fmt, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    notice = proc.stderr.splitlines()[0]
    [aside] = list(db.parent.glob("checkpoints.db.corrupt-*"))
    assert notice.startswith("birdie-tui: recovered: history database checkpoints.db is ")
    assert str(aside) in notice and "starting with an empty history" in notice
    assert "still here?" in proc.stdout
    # The fresh database works for the next run without another notice.
    again = run_cli(isolated_home, "--print", "and now", "--output-format", "stream-json")
    assert again.returncode == 0 and again.stderr == ""


# ------------------------------------------------------------------------------- approval exits
def test_pending_approval_exits_4_deny_rule_exits_3_auto_approve_exits_0(isolated_home, skills,
                                                                         tmp_path):
    """A guarded tool waits (exit 4, nothing run); a settings.json deny rule refuses it outright
    (exit 3, even with --auto-approve); --auto-approve runs it (exit 0)."""
    canary = tmp_path / "canary"
    message = "call touch_file " + json.dumps({"path": str(canary)})
    waiting = run_cli(isolated_home, "--print", message, "--skills-dir", str(skills))
    assert waiting.returncode == 4
    assert waiting.stderr.splitlines()[0].startswith("birdie-tui: approval needed: touch_file ")
    assert not canary.exists()
    settings = isolated_home / "settings.json"
    settings.write_text(json.dumps({"permissions": {"deny": ["touch_file"]}}))
    refused = run_cli(isolated_home, "--print", message, "--auto-approve",
                      "--skills-dir", str(skills))
    assert refused.returncode == 3, refused.stderr
    assert "not run: touch_file" in refused.stderr and not canary.exists()
    settings.unlink()
    allowed = run_cli(isolated_home, "--print", message, "--auto-approve",
                      "--skills-dir", str(skills))
    assert allowed.returncode == 0, allowed.stderr
    assert canary.exists()
