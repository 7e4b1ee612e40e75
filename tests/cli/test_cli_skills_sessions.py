"""`birdie-tui skills check` and `birdie-tui sessions list|export`, as real subprocesses
(docs/contracts.md, Command line)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import date
from pathlib import Path

import pytest

from birdie_tui.store import BirdiePaths, SessionStore

from ..agent.conftest import write_skills
from ..conftest import clean_env
from .helpers import USER, assert_one_line_error, run_cli

pytestmark = pytest.mark.integration

SKILL_KEYS = ["name", "kind", "path", "description", "version", "tags", "triggers",
              "enabled_by_default", "always_inject", "tools", "mcp_server"]
TOOL_KEYS = ["name", "description", "entrypoint", "schema"]
ROW_KEYS = ["id", "title", "created_at", "updated_at", "turns", "input_tokens", "output_tokens"]
BUNDLED = {"filesystem", "git-helper", "mcp_demo", "planning", "Shell", "ssh", "weather"}


def check_json(home: Path, *args: str, env=None):
    proc = run_cli(home, "skills", "check", *args, "--json", env=env)
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert list(data) == ["skills", "errors"]
    for skill in data["skills"]:
        assert list(skill) == SKILL_KEYS, skill["name"]
        assert isinstance(skill["name"], str) and skill["name"]
        assert skill["kind"] in ("tools", "knowledge", "always", "mcp", "agent-skill")
        assert Path(skill["path"]).is_file()
        assert isinstance(skill["tags"], list) and isinstance(skill["triggers"], list)
        assert isinstance(skill["enabled_by_default"], bool)
        assert isinstance(skill["always_inject"], bool)
        for tool in skill["tools"]:
            assert list(tool) == TOOL_KEYS
            assert isinstance(tool["schema"], dict)
        assert skill["mcp_server"] is None or isinstance(skill["mcp_server"], dict)
    for error in data["errors"]:
        assert list(error) == ["path", "line", "message"]
    return proc, data


# ------------------------------------------------------------------------------- skills check
def test_skills_check_bundled_json(isolated_home):
    """The skills check JSON lists every bundled skill with its kind, tools and flags."""
    proc, data = check_json(isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert data["errors"] == []
    by_name = {s["name"]: s for s in data["skills"]}
    assert set(by_name) == BUNDLED
    assert by_name["mcp_demo"]["mcp_server"]["command"]
    assert by_name["mcp_demo"]["kind"] == "mcp"
    assert by_name["filesystem"]["mcp_server"] is None
    assert by_name["ssh"]["kind"] == "knowledge" and "ssh" in by_name["ssh"]["triggers"]
    assert by_name["ssh"]["tools"] == []
    assert by_name["planning"]["always_inject"] is True
    assert by_name["weather"]["enabled_by_default"] is False
    assert by_name["git-helper"]["kind"] == "agent-skill"
    fs_tools = {t["name"]: t for t in by_name["filesystem"]["tools"]}
    assert fs_tools["read_file"]["entrypoint"].startswith("bash:")
    assert fs_tools["read_file"]["schema"]["type"] == "object"


def test_skills_check_bundled_text_lists_every_skill(isolated_home):
    """The skills check text lists every bundled skill and its tools, with zero errors."""
    proc = run_cli(isolated_home, "skills", "check")
    assert proc.returncode == 0, proc.stderr
    for name in BUNDLED:
        assert name in proc.stdout
    assert "run_bash" in proc.stdout  # tools are listed
    assert "0 errors" in proc.stdout


def test_skills_check_test_set_shapes(isolated_home, tmp_path):
    """The skills check JSON gives each skill's path, kind, tags, flags and full tool shapes."""
    skills = write_skills(tmp_path / "skills")
    proc, data = check_json(isolated_home, str(skills))
    assert proc.returncode == 0, proc.stderr
    by_name = {s["name"]: s for s in data["skills"]}
    assert set(by_name) == {"Echoer", "Guarded", "ssh", "planner", "Quiet", "helper"}
    echo = by_name["Echoer"]
    assert echo["kind"] == "tools" and echo["tags"] == ["text"] and echo["triggers"] == []
    assert echo["version"] == "1.0.0" and echo["mcp_server"] is None
    assert echo["path"] == str(skills / "echoer" / "SKILL.MD")
    assert [t["name"] for t in echo["tools"]] == ["echo_text", "fail_hard", "slow"]
    assert echo["tools"][0] == {
        "name": "echo_text",
        "description": "Print the given text.",
        "entrypoint": "bash:printf '%s' {text}",
        "schema": {"type": "object", "properties": {"text": {"type": "string"}},
                   "required": ["text"]},
    }
    assert by_name["Quiet"]["enabled_by_default"] is False
    assert by_name["ssh"]["triggers"] == ["ssh", "remote server"]
    assert by_name["planner"]["always_inject"] is True


def test_skills_check_broken_file_exits_1_with_path_and_line(isolated_home, tmp_path):
    """Skills check exits 1 with path and line for broken files, still listing good ones."""
    root = tmp_path / "mixed"
    (root / "good").mkdir(parents=True)
    (root / "good" / "SKILL.MD").write_text("---\nname: good\ndescription: fine\n---\nBody.\n")
    bad = root / "bad" / "SKILL.MD"
    bad.parent.mkdir()
    bad.write_text(textwrap.dedent("""\
        ---
        name: bad
        description: broken on purpose
        enabled_by_default: maybe
        ---
        Body.
        """))
    nofront = root / "nofront" / "SKILL.MD"
    nofront.parent.mkdir()
    nofront.write_text("just text\n")

    proc, data = check_json(isolated_home, str(root))
    assert proc.returncode == 1
    assert [s["name"] for s in data["skills"]] == ["good"]  # one bad file hides nothing
    by_path = {}
    for error in data["errors"]:
        by_path.setdefault(error["path"], []).append(error)
    assert set(by_path) == {str(bad), str(nofront)}
    [bad_error] = by_path[str(bad)]
    assert bad_error["line"] == 4 and "enabled_by_default" in bad_error["message"]
    assert by_path[str(nofront)][0]["line"] == 1

    text = run_cli(isolated_home, "skills", "check", str(root))
    assert text.returncode == 1
    assert "good" in text.stdout
    assert f"{bad}:4" in text.stdout
    assert "Traceback" not in text.stderr


def test_skills_check_several_dirs_and_missing_dir(isolated_home, tmp_path):
    """Skills check takes several folders and reports a missing one as an error."""
    skills = write_skills(tmp_path / "skills")
    proc, data = check_json(isolated_home, str(skills), str(tmp_path / "nowhere"))
    assert proc.returncode == 1
    assert len(data["skills"]) == 6
    assert [e["path"] for e in data["errors"]] == [str(tmp_path / "nowhere")]


def test_skills_check_honours_birdie_skills_dir(isolated_home, tmp_path):
    """Skills check uses BIRDIE_SKILLS_DIR instead of the bundled skills."""
    skills = write_skills(tmp_path / "skills")
    proc, data = check_json(isolated_home, env={"BIRDIE_SKILLS_DIR": str(skills)})
    assert proc.returncode == 0
    assert "filesystem" not in {s["name"] for s in data["skills"]}
    assert "Echoer" in {s["name"] for s in data["skills"]}


# ------------------------------------------------------------------------------- sessions list
def test_sessions_list_json_keys_and_numeric_order(isolated_home):
    """Session list rows have fixed keys and numeric newest-first order, in JSON and text."""
    store = SessionStore(BirdiePaths(isolated_home), USER)
    old = store.create(today=date(2020, 1, 1))
    day = date(2024, 5, 6)
    made = [store.create(today=day) for _ in range(11)]
    assert [m.id for m in made] == [f"2024-05-06_{n}" for n in range(1, 12)]
    store.set_title(made[2], "third")
    store.record_turn(made[2], 10, 4)
    for meta in [old, *made[:2], *made[3:]]:  # empty sessions are not listed
        store.record_turn(meta, 0, 0)

    proc = run_cli(isolated_home, "sessions", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    for row in rows:
        assert list(row) == ROW_KEYS
    assert [r["id"] for r in rows] == [f"2024-05-06_{n}" for n in range(11, 0, -1)] + [old.id]
    third = next(r for r in rows if r["id"] == "2024-05-06_3")
    assert third["title"] == "third"
    assert (third["turns"], third["input_tokens"], third["output_tokens"]) == (1, 10, 4)
    assert rows[0]["title"] is None and rows[0]["turns"] == 1

    text = run_cli(isolated_home, "sessions", "list")
    assert text.returncode == 0
    ids_in_text = [line.split()[0] for line in text.stdout.splitlines()]
    assert ids_in_text == [r["id"] for r in rows]
    # one turn is "1 turn", never "1 turns" (and the columns stay aligned)
    assert "   1 turn   ↑10 ↓4" in text.stdout and "1 turns" not in text.stdout


def test_sessions_list_empty_and_per_user(isolated_home):
    """The session list is empty with no sessions and shows only the chosen user's."""
    proc = run_cli(isolated_home, "sessions", "list", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == []
    alice = SessionStore(BirdiePaths(isolated_home), "alice")
    alice.record_turn(alice.create(), 1, 1)
    assert json.loads(run_cli(isolated_home, "sessions", "list", "--json").stdout) == []
    rows = json.loads(run_cli(isolated_home, "sessions", "list", "--user", "alice",
                              "--json").stdout)
    assert len(rows) == 1


def test_sessions_list_invalid_user_is_one_line(isolated_home):
    """Listing sessions for an invalid user name is a one-line error."""
    proc = run_cli(isolated_home, "sessions", "list", "--user", "../evil", "--json")
    assert "../evil" in assert_one_line_error(proc)


# ------------------------------------------------------------------------------- export
def _session_with_turns(home: Path, skills: Path) -> str:
    proc = run_cli(home, "--print", "please remember the walrus", "--output-format",
                   "stream-json", "--skills-dir", str(skills))
    assert proc.returncode == 0, proc.stderr
    sid = json.loads(proc.stdout.splitlines()[0])["id"]
    proc = run_cli(home, "--print", 'call echo_text {"text":"tusk"}', "--session-id", sid,
                   "--skills-dir", str(skills))
    assert proc.returncode == 0, proc.stderr
    return sid


def test_sessions_export_markdown_and_json(isolated_home, tmp_path):
    """Session export writes Markdown and JSON transcripts with tool calls and results."""
    skills = write_skills(tmp_path / "skills")
    sid = _session_with_turns(isolated_home, skills)

    md = run_cli(isolated_home, "sessions", "export", sid)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith(f"# {sid}")
    assert "please remember the walrus" in md.stdout
    assert "## You" in md.stdout and "## Birdie" in md.stdout
    assert "echo_text" in md.stdout and "tusk" in md.stdout

    js = run_cli(isolated_home, "sessions", "export", sid, "--format", "json")
    assert js.returncode == 0, js.stderr
    data = json.loads(js.stdout)
    assert list(data["session"]) == ROW_KEYS
    assert data["session"]["id"] == sid and data["session"]["turns"] == 2
    roles = [m["role"] for m in data["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant"]
    assert data["messages"][0]["content"] == "please remember the walrus"
    assert "walrus" in data["messages"][1]["content"]
    call = data["messages"][3]["tool_calls"][0]
    assert call["name"] == "echo_text" and call["args"] == {"text": "tusk"}
    tool = data["messages"][4]
    assert tool["tool_call_id"] == call["id"] and tool["content"] == "tusk"
    assert tool["error"] is False


def test_sessions_export_needs_no_provider(isolated_home, tmp_path):
    """Session export works without the provider's API key."""
    skills = write_skills(tmp_path / "skills")
    sid = _session_with_turns(isolated_home, skills)
    proc = run_cli(isolated_home, "sessions", "export", sid, env={"LLM_VENDOR": "openai"})
    assert proc.returncode == 0, proc.stderr
    assert "walrus" in proc.stdout


def test_sessions_export_unknown_or_invalid_is_one_line(isolated_home):
    """Exporting an unknown or invalid session id is a one-line error with no stdout."""
    for bad, code in (("2020-01-01_9", 1), ("nope", None)):
        proc = run_cli(isolated_home, "sessions", "export", bad)
        assert bad in assert_one_line_error(proc)
        if code is not None:
            assert proc.returncode == code
        assert proc.stdout == ""


def test_console_script_runs(isolated_home):
    """The installed birdie-tui console script runs `skills check --json`."""
    script = Path(sys.executable).parent / "birdie-tui"
    if not script.exists():
        pytest.skip("package not installed with its console script")
    proc = subprocess.run([str(script), "skills", "check", "--json"], env=clean_env(isolated_home),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert {s["name"] for s in json.loads(proc.stdout)["skills"]} == BUNDLED
