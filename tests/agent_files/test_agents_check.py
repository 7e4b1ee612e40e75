"""`birdie-tui agents check [DIR ...] [--json]`: every agent and every problem, exit 1 with a
problem, through the real command line."""

from __future__ import annotations

import json

import pytest

from birdie_tui.cli import main

from ..cli.helpers import run_cli

GOOD = ("---\nname: Helper\ndescription: Helps.\nmodel: gpt-4o-mini\nallowed_skills: [files]\n"
        "---\n## Input\n### text\ntype: string\n### n\ntype: integer\nrequired: false\n"
        "## Output\n### answer\ntype: string\n## Prompt\n{{ text }}\n")


def folder(tmp_path):
    root = tmp_path / "agents"
    (root / "helper").mkdir(parents=True)
    (root / "helper" / "AGENT.MD").write_text(GOOD)
    (root / "broken").mkdir()
    (root / "broken" / "AGENT.MD").write_text("---\nname: Broken\n---\n## Prompt\nx\n")
    (root / "reviewer.md").write_text("---\ndescription: Reviews.\ntools: Read, Grep\n---\nBe "
                                      "strict.\n")
    return root


@pytest.mark.integration
def test_text_lists_agents_and_problems(isolated_home, tmp_path):
    """One line per agent (name, format, default, inputs, outputs, model, skills, source), an
    ERROR line per problem with its file and line, the counts, exit 1."""
    root = folder(tmp_path)
    proc = run_cli(isolated_home, "agents", "check", str(root))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == [
        "ok", "Helper", "AGENT.MD", "default", "off", "inputs:", "text", "(string),", "n",
        "(integer,", "optional)", "outputs:", "answer", "(string)", "model:", "gpt-4o-mini",
        "skills:", "files", "(dir)"]
    assert lines[1].split()[:3] == ["ok", "reviewer", "markdown"] and "Read, Grep" in lines[1]
    assert lines[2] == (f"ERROR {root / 'broken' / 'AGENT.MD'}:1: missing required field "
                        "'description'")
    assert lines[3] == "2 agents, 1 error"


@pytest.mark.integration
def test_json_and_the_bundled_default(isolated_home, tmp_path):
    """--json gives {"agents", "errors"}; with no folder the defaults load the bundled
    Summarizer, and no problem means exit 0."""
    root = folder(tmp_path)
    proc = run_cli(isolated_home, "agents", "check", str(root), "--json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert [a["name"] for a in data["agents"]] == ["Helper", "reviewer"]
    assert data["agents"][0]["inputs"][1] == {"name": "n", "type": "integer", "description": "",
                                              "required": False}
    assert data["errors"] == [{"path": str(root / "broken" / "AGENT.MD"), "line": 1,
                               "message": "missing required field 'description'"}]
    proc = run_cli(isolated_home, "agents", "check", "--json", env={"BIRDIE_AGENTS_DIR": ""})
    data = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    summarizer = next(a for a in data["agents"] if a["name"] == "Summarizer")
    assert summarizer["source"] == "bundled" and data["errors"] == []


@pytest.mark.integration
def test_a_missing_folder_and_a_bad_word_are_one_line(isolated_home, tmp_path):
    """A missing folder is an error line (exit 1); an unknown action is argparse's one line
    (exit 2), no traceback."""
    proc = run_cli(isolated_home, "agents", "check", str(tmp_path / "nope"))
    assert proc.returncode == 1 and "does not exist" in proc.stdout
    proc = run_cli(isolated_home, "agents", "frobnicate")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_in_process_counts_and_exit_status(tmp_path, capsys):
    """`main(["agents", "check", DIR])` in this process (the fast tier's check of the wiring)."""
    root = folder(tmp_path)
    assert main(["agents", "check", str(root)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "2 agents, 1 error"
    (root / "broken" / "AGENT.MD").unlink()
    assert main(["agents", "check", str(root)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 agents, 0 errors"


def test_triggers_and_settings_schedules_are_listed(tmp_path, isolated_home, capsys,
                                                    monkeypatch):
    """Each agent's triggers under it, the settings' schedules on their own lines, a bad
    schedule an ERROR with the settings file and line; --json lists both."""
    monkeypatch.setenv("BIRDIE_AGENTS_DIR", str(tmp_path / "agents"))
    (tmp_path / "agents" / "digest").mkdir(parents=True)
    (tmp_path / "agents" / "digest" / "AGENT.MD").write_text(GOOD.replace(
        "allowed_skills: [files]\n", "allowed_skills: [files]\nevery: 30m\nwatch: drafts/*.md\n"
        "input: {text: news}\napproval: auto\n"))
    (isolated_home / "settings.json").write_text(json.dumps({"schedules": [
        {"name": "inbox", "prompt": "Summarise", "cron": "0 9 * * *"},
        {"name": "late", "prompt": "x", "cron": "0 25 * * *"}]}, indent=1))
    assert main(["agents", "check"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["↳", "Helper:every", "every", "30m", "approval:", "auto",
                                "input:", "text"]
    assert lines[2].split()[:3] == ["↳", "Helper:watch", "watch"]
    assert lines[3].split() == ["ok", "schedule:inbox", "cron", "0", "9", "*", "*", "*",
                                "approval:", "read-only", "(settings.json)"]
    assert lines[4].startswith(f"ERROR {isolated_home / 'settings.json'}:9: schedules #2 "
                               "('late'): field 'cron'")
    assert lines[-1] == "1 agent, 3 triggers, 1 error"
    assert main(["agents", "check", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [t["key"] for t in data["agents"][0]["triggers"]] == ["Helper:every", "Helper:watch"]
    assert [t["key"] for t in data["schedules"]] == ["schedule:inbox"]
    assert "0 25 * * *" in data["errors"][0]["message"]
