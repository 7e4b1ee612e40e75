"""`birdie-tui agents start` as a real process on the offline model: triggers fired into
sessions and run-log entries, watch bursts, one scheduler per home, SIGTERM, bad triggers,
and two schedulers on one PostgreSQL database firing each firing once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from birdie_tui.schedules.lock import holder
from birdie_tui.store.database import open_session_store
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import open_run_log
from tests.cli.helpers import run_cli
from tests.conftest import clean_env

pytestmark = pytest.mark.integration


def write_agent(folder: Path, name: str, front: str) -> Path:
    path = folder / name / "AGENT.MD"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: Runs on its own.\n{front}\n---\n"
                    "## Prompt\nSay hello.\n")
    return path


class Scheduler:
    """`agents start` in the background, its stdout gathered line by line."""

    def __init__(self, home: Path, *args: str, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "birdie_tui.cli", "agents", "start", *args],
            env={**clean_env(home), **(env or {})}, cwd=cwd, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, check, timeout: float = 90) -> None:
        """Until `check(lines)` is true; bounded, with the output in the failure."""
        deadline = time.monotonic() + timeout
        while not check(self.lines):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"gave up; stdout: {self.lines}; stderr: "
                                     f"{self.proc.stderr.read() if self.proc.stderr else ''}")
            time.sleep(0.1)

    def count(self, word: str) -> int:
        return sum(1 for line in self.lines if f" {word} " in line)

    def terminate(self, timeout: float = 30) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def scheduler_processes():
    """Every scheduler a test starts is killed at its end, whatever happened."""
    started: list[Scheduler] = []
    yield started
    for sched in started:
        sched.kill()


def test_an_every_trigger_runs_each_second_each_run_a_session_with_its_log_entry(
        isolated_home: Path, tmp_path: Path, scheduler_processes) -> None:
    """`every: 1s`: three runs in a few seconds, each done, each a session titled and marked
    as the run, each with its run-log entry; SIGTERM ends it with 0 and frees the lock."""
    write_agent(tmp_path / "agents", "digest", "every: 1s")
    sched = Scheduler(isolated_home, "--agents-dir", str(tmp_path / "agents"))
    scheduler_processes.append(sched)
    sched.wait_for(lambda lines: sum(" done digest:every" in line for line in lines) >= 3)
    assert "scheduler started" in sched.lines[0] and "digest:every (next " in sched.lines[0]
    assert sched.terminate() == 0
    assert sched.lines[-1] == "stopped"
    assert holder(isolated_home) is None
    paths = BirdiePaths.from_env()
    log = open_run_log(paths, "tester", None)
    sessions = open_session_store(paths, "tester", None)
    try:
        done = [r for r in log.list(limit=50) if r.status == "done"]
        assert len(done) >= 3
        assert len({r.fire_time for r in done}) == len(done)
        for record in done:
            meta = sessions.load(record.session_id or "")
            assert meta is not None and meta.title == "digest · every 1s"
            assert meta.extra["run"]["run_id"] == record.run_id
    finally:
        log.close()
        sessions.close()


def test_a_second_scheduler_on_the_same_home_is_refused_naming_the_first(
        isolated_home: Path, tmp_path: Path, scheduler_processes) -> None:
    """While one `agents start` runs, another on the same home exits 1 naming its host:pid."""
    write_agent(tmp_path / "agents", "digest", "cron: \"0 3 1 1 *\"")
    first = Scheduler(isolated_home, "--agents-dir", str(tmp_path / "agents"))
    scheduler_processes.append(first)
    first.wait_for(lambda lines: any("scheduler started" in line for line in lines))
    second = run_cli(isolated_home, "agents", "start", "--agents-dir", str(tmp_path / "agents"))
    assert second.returncode == 1
    assert f":{first.proc.pid})" in second.stderr and "already runs" in second.stderr
    assert "Traceback" not in second.stderr
    assert first.terminate() == 0
    assert holder(isolated_home) is None


def test_sigterm_cancels_a_running_run_and_overlapping_firings_are_skipped(
        isolated_home: Path, tmp_path: Path, scheduler_processes) -> None:
    """A slow run (the offline model at 2 tokens a second) under `every: 1s`: the next firings
    are skipped naming it; SIGTERM cancels it, its record says cancelled, its session stays."""
    write_agent(tmp_path / "agents", "digest", "every: 1s")
    sched = Scheduler(isolated_home, "--agents-dir", str(tmp_path / "agents"),
                      env={"BIRDIE_OFFLINE_TPS": "2"})
    scheduler_processes.append(sched)
    sched.wait_for(lambda lines: sum(" skipped digest:every" in line for line in lines) >= 2)
    assert any("was still going" in line for line in sched.lines)
    assert sched.terminate() == 0
    log = open_run_log(BirdiePaths.from_env(), "tester", None)
    try:
        records = log.list(limit=50)
    finally:
        log.close()
    statuses = Counter(r.status for r in records)
    assert statuses["cancelled"] == 1 and statuses["skipped"] >= 2
    cancelled = next(r for r in records if r.status == "cancelled")
    assert cancelled.session_id
    skipped = next(r for r in records if r.status == "skipped")
    assert f"(id {cancelled.run_id})" in (skipped.error or "")


def test_a_bad_cron_is_reported_with_file_and_line_and_the_others_run(
        isolated_home: Path, tmp_path: Path, scheduler_processes) -> None:
    """A cron expression APScheduler refuses is one ERROR line naming the file and line; the
    good trigger beside it still runs."""
    bad = write_agent(tmp_path / "agents", "broken", "cron: \"61 * * * *\"")
    write_agent(tmp_path / "agents", "digest", "every: 1s")
    sched = Scheduler(isolated_home, "--agents-dir", str(tmp_path / "agents"))
    scheduler_processes.append(sched)
    sched.wait_for(lambda lines: any(" done digest:every" in line for line in lines))
    errors = [line for line in sched.lines if line.startswith("ERROR")]
    assert len(errors) == 1 and f"{bad}:4" in errors[0] and "61 * * * *" in errors[0]
    assert sched.terminate() == 0


def test_a_watch_trigger_runs_once_per_burst_and_sees_the_paths(
        isolated_home: Path, tmp_path: Path, scheduler_processes) -> None:
    """Files written quickly into a watched folder are one run listing them; a later burst
    is a second run."""
    project = tmp_path / "project"
    (project / "drafts").mkdir(parents=True)
    write_agent(tmp_path / "agents", "review", "watch: drafts/*.md\ndebounce: 1s")
    sched = Scheduler(isolated_home, "--agents-dir", str(tmp_path / "agents"), cwd=project)
    scheduler_processes.append(sched)
    sched.wait_for(lambda lines: any("scheduler started" in line for line in lines))
    time.sleep(1)  # the watcher is up once the line is out; give its thread a moment
    for name in ("b.md", "a.md", "notes.txt", "c.md"):
        (project / "drafts" / name).write_text("draft")
        time.sleep(0.1)
    sched.wait_for(lambda lines: sched.count("done") == 1)
    time.sleep(2)
    assert sched.count("start") == 1
    (project / "drafts" / "d.md").write_text("draft")
    sched.wait_for(lambda lines: sched.count("done") == 2)
    assert sched.terminate() == 0
    log = open_run_log(BirdiePaths.from_env(), "tester", None)
    try:
        runs = sorted(log.list(limit=10), key=lambda r: r.started_at)
    finally:
        log.close()
    drafts = project / "drafts"
    assert [r.changed_paths for r in runs] == [
        tuple(str(drafts / n) for n in ("a.md", "b.md", "c.md")), (str(drafts / "d.md"),)]


def test_two_schedulers_on_one_postgresql_database_fire_each_firing_once(
        pg_url: str, tmp_path: Path, scheduler_processes) -> None:
    """Two machines (two homes) sharing a database: every firing of `every: 1s` is run by
    one of them, never both."""
    write_agent(tmp_path / "agents", "digest", "every: 1s")
    homes = [tmp_path / "home-a", tmp_path / "home-b"]
    scheds = []
    for home in homes:
        home.mkdir()
        sched = Scheduler(home, "--agents-dir", str(tmp_path / "agents"),
                          "--database-url", pg_url)
        scheduler_processes.append(sched)
        scheds.append(sched)
    for sched in scheds:
        sched.wait_for(lambda lines: any("scheduler started" in line for line in lines))
    deadline = time.monotonic() + 90
    while sum(s.count("done") for s in scheds) < 6 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [s.terminate() for s in scheds] == [0, 0]
    log = open_run_log(BirdiePaths(homes[0]), "tester", pg_url)
    try:
        records = [r for r in log.list(limit=200) if r.trigger_key == "digest:every"]
    finally:
        log.close()
    ran = [r for r in records if r.status in ("done", "cancelled", "running", "failed")]
    assert len(ran) >= 6
    fires = Counter(r.fire_time for r in records)
    assert max(fires.values()) == 1, fires.most_common(3)


def test_an_agent_file_added_while_it_runs_is_scheduled(
        isolated_home: Path, tmp_path: Path, scheduler_processes) -> None:
    """A new agent file with `every: 1s` written into a watched folder while the scheduler
    runs: a `reloaded` line names it, and it runs."""
    agents = tmp_path / "agents"
    write_agent(agents, "yearly", "cron: \"0 3 1 1 *\"")
    sched = Scheduler(isolated_home, "--agents-dir", str(agents))
    scheduler_processes.append(sched)
    sched.wait_for(lambda lines: any("scheduler started" in line for line in lines))
    write_agent(agents, "digest", "every: 1s")
    sched.wait_for(lambda lines: any(" done digest:every" in line for line in lines))
    assert any(line == "reloaded: 2 triggers; added digest:every" for line in sched.lines)
    assert sched.terminate() == 0
