"""`birdie-tui agents logs [NAME] [--json] [--limit N] [--user U] [--database-url URL]`: the
run log newest first, every text made safe for the terminal; NAME an agent or a settings
schedule; errors one line. In this process, and once through the real command line."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from birdie_tui.cli import main
from birdie_tui.schedules.models import RunRecord
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import open_run_log

from .helpers import assert_one_line_error, run_cli

T0 = datetime(2026, 3, 14, 9, 0, tzinfo=timezone.utc)


def run(n: int, **changes: object) -> RunRecord:
    return RunRecord(run_id=f"{n:032x}", trigger_key="digest:every", agent="digest",
                     trigger="every 30m", user="tester", status="done",
                     started_at=T0 + timedelta(minutes=n), session_id=f"2026-03-14_{n}",
                     finished_at=T0 + timedelta(minutes=n, seconds=75), input_tokens=1200,
                     output_tokens=80, answer="Three new mails.\nDetails follow.",
                     ).ended(**changes)


def save(home: Path, *records: RunRecord, url: str | None = None) -> None:
    log = open_run_log(BirdiePaths(home), "tester", url)
    try:
        for record in records:
            log.save(record)
    finally:
        log.close()


def test_runs_are_listed_newest_first(isolated_home: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    """A line per run: local start, agent, trigger, status, duration, tokens, session, the
    first line of the error or else the answer; `--limit` keeps the newest."""
    save(isolated_home, run(1), run(2, status="failed", error="provider said no\nstack"),
         run(3, trigger_key="schedule:inbox", agent=None, trigger="cron 0 9 * * *",
             status="running", finished_at=None, answer=None))
    assert main(["agents", "logs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    local = (T0 + timedelta(minutes=3)).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    assert lines[0].split()[:5] == [*local.split(), "schedule:inbox", "cron", "0"]
    assert lines[0].split()[-4:] == ["-", "↑1200", "↓80", "2026-03-14_3"]
    assert lines[1].split()[2:] == ["digest", "every", "30m", "failed", "1m15s", "↑1200",
                                    "↓80", "2026-03-14_2", "provider", "said", "no"]
    assert lines[2].endswith("2026-03-14_1   Three new mails.")
    assert main(["agents", "logs", "--limit", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_json_is_the_records(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--json` prints the records' `to_dict()` list, newest first; NAME picks an agent's
    runs, or a settings schedule's by its name."""
    inbox = run(3, trigger_key="schedule:inbox", agent=None)
    save(isolated_home, run(1), run(2, changed_paths=("drafts/a.md",)), inbox)
    assert main(["agents", "logs", "digest", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == [run(2, changed_paths=("drafts/a.md",)).to_dict(), run(1).to_dict()]
    assert main(["agents", "logs", "inbox", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [inbox.to_dict()]


def test_escapes_never_reach_the_terminal(isolated_home: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """An answer or trigger holding an OSC 52 (clipboard) or colour sequence, or a NUL, is
    shown neutralised: no ESC or BEL byte is printed."""
    save(isolated_home, run(1, answer="\x1b]52;c;cm0gLXJm\x07 owned \x1b[31mred\x00",
                            trigger="every \x1b[2J30m"))
    assert main(["agents", "logs"]) == 0
    out = capsys.readouterr().out
    assert "owned" in out and "\x1b" not in out and "\x07" not in out and "\x00" not in out


def test_no_runs_and_unknown_names(isolated_home: Path, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """No log yet: "no runs yet", exit 0, no file made; an agent or schedule with no runs:
    "no runs of NAME", exit 0; a name that is neither, with no runs: exit 1, one line."""
    monkeypatch.chdir(tmp_path)
    assert main(["agents", "logs"]) == 0
    assert capsys.readouterr().out == "no runs yet\n"
    assert not BirdiePaths(isolated_home).runs_db("tester").exists()
    (isolated_home / "settings.json").write_text(json.dumps({"schedules": [
        {"name": "inbox", "prompt": "p", "every": "1h"}]}))
    assert main(["agents", "logs", "Summarizer"]) == 0
    assert capsys.readouterr().out == "no runs of Summarizer\n"
    assert main(["agents", "logs", "inbox"]) == 0
    assert capsys.readouterr().out == "no runs of inbox\n"
    assert main(["agents", "logs", "ghost"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        "birdie-tui: agents logs: no agent or schedule named 'ghost', and no runs of it\n")


@pytest.mark.parametrize(("args", "words"), [
    (["--database-url", "mysql://x"], "invalid database URL"),
    (["--user", "../etc"], "invalid user name"),
])
def test_bad_options_are_one_line(isolated_home: Path, capsys: pytest.CaptureFixture[str],
                                  args: list[str], words: str) -> None:
    """A bad URL or user: one line on stderr, exit 2."""
    assert main(["agents", "logs", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.splitlines()) == 1


def test_a_damaged_log_is_said_and_moved_aside(isolated_home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A runs.db that is no database: "recovered: ..." on stderr, moved aside, exit 0."""
    folder = BirdiePaths(isolated_home).ensure_user_dir("tester")
    (folder / "runs.db").write_bytes(b"garbage" * 100)
    assert main(["agents", "logs"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "no runs yet\n" and "recovered: run log runs.db" in captured.err
    assert list(folder.glob("runs.db.corrupt-*"))


@pytest.mark.integration
def test_the_real_command_line_on_a_database(isolated_home: Path, pg_url: str) -> None:
    """Through `python -m birdie_tui.cli` on a shared PostgreSQL database: the runs of the
    user saved there, as JSON; an unreachable database is one line, exit 2."""
    save(isolated_home, run(1), url=pg_url)
    proc = run_cli(isolated_home, "agents", "logs", "--json", "--database-url", pg_url)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [run(1).to_dict()]
    proc = run_cli(isolated_home, "agents", "logs", "--database-url",
                   "postgresql://nobody@127.0.0.1:1/none")
    assert proc.returncode == 2 and "cannot connect" in assert_one_line_error(proc)
