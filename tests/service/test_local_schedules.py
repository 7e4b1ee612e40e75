"""The local door's runs (`service/local/schedules.py`): the run log's records, every trigger
with its next firing (APScheduler's triggers) and last run, who holds the scheduler's lock;
none of it paid for at start."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from apscheduler.triggers.cron import CronTrigger

from birdie_tui.schedules.models import RunRecord
from birdie_tui.service import local_birdie
from birdie_tui.schedules.lock import holder
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import open_run_log

DIGEST = ("---\nname: digest\ndescription: Digests.\nevery: 30m\ncron: \"0 9 * * 1-5\"\n"
          "tz: Europe/Paris\nwatch: [drafts/*.md]\n---\n## Prompt\nDigest the news.\n")


@pytest.fixture
def agents(tmp_path) -> Path:
    folder = tmp_path / "agents" / "digest"
    folder.mkdir(parents=True)
    (folder / "AGENT.MD").write_text(DIGEST)
    return tmp_path / "agents"


@pytest.fixture
async def door(isolated_home, agents, tmp_path):
    skills = tmp_path / "skills"
    skills.mkdir()
    birdie = local_birdie(skills_dirs=[skills], agents_dirs=[agents])
    await birdie.start()
    yield birdie
    await birdie.close()


def record(key: str, agent: str | None, started: datetime, status: str = "done") -> RunRecord:
    return RunRecord(run_id=f"{key}-{started.timestamp()}", trigger_key=key, agent=agent,
                     trigger=key.split(":")[-1], user="tester", status=status,
                     started_at=started)


def saved(*records: RunRecord) -> None:
    log = open_run_log(BirdiePaths.from_env(), "tester", None)
    try:
        for one in records:
            log.save(one)
    finally:
        log.close()


async def test_the_run_log_is_not_opened_at_start(door, isolated_home):
    """Starting the door reads no run log: it opens on first use (the runs view)."""
    runs_db = isolated_home / "sessions" / "tester" / "runs.db"
    assert not runs_db.exists()
    assert door.scheduled_runs() == []
    assert runs_db.exists()


async def test_scheduled_runs_are_the_run_logs_newest_first(door):
    """Every record, newest first; `agent` keeps that agent's only; `limit` caps them."""
    now = datetime.now(UTC)
    first = record("digest:every", "digest", now - timedelta(hours=2))
    second = record("schedule:inbox", None, now - timedelta(hours=1))
    third = record("digest:manual", "digest", now, status="pending")
    saved(first, second, third)
    assert door.scheduled_runs() == [third, second, first]
    assert door.scheduled_runs(agent="digest") == [third, first]
    assert door.scheduled_runs(limit=1) == [third]


async def test_trigger_rows_give_the_next_firing_and_the_last_run(door, isolated_home):
    """every: the next boundary of the interval counted from a fixed instant (when
    `agents start` fires it: on the hour and the half hour for 30m, whatever the last run);
    cron: its next time in its zone, weekdays as crontab counts them; watch: none; each with
    its last run; settings schedules too."""
    (isolated_home / "settings.json").write_text(json.dumps({"schedules": [
        {"name": "inbox", "prompt": "summarise the inbox", "every": "1h"}]}))
    before = datetime.now(UTC)
    rows = {row.trigger.key: row for row in door.trigger_rows()}
    assert set(rows) == {"digest:every", "digest:cron", "digest:watch", "schedule:inbox"}
    every = rows["digest:every"].next_fire
    assert every is not None and before < every <= datetime.now(UTC) + timedelta(minutes=30)
    assert every.minute in (0, 30) and every.second == 0 and every.microsecond == 0
    inbox = rows["schedule:inbox"].next_fire
    assert inbox is not None and inbox.minute == 0 and inbox.second == 0
    assert rows["digest:every"].last is None
    cron = CronTrigger.from_crontab("0 9 * * mon-fri", timezone="Europe/Paris")
    assert rows["digest:cron"].next_fire == cron.get_next_fire_time(None, datetime.now(UTC))
    assert rows["digest:watch"].next_fire is None

    started = datetime.now(UTC) - timedelta(minutes=10)
    last = record("digest:every", "digest", started)
    saved(last)
    rows = {row.trigger.key: row for row in door.trigger_rows()}
    assert rows["digest:every"].last == last
    assert rows["digest:every"].next_fire == every


def test_the_lock_holder_is_a_live_process_of_this_machine_or_another_machine(tmp_path):
    """This machine's lock counts while its pid lives; another machine's as written; no file
    or a damaged one: nobody."""
    lock = tmp_path / "scheduler.lock"
    assert holder(tmp_path) is None
    here = socket.gethostname()
    lock.write_text(json.dumps({"host": here, "pid": os.getpid(), "started_at": "now"}))
    assert holder(tmp_path) == f"{here}:{os.getpid()}"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    lock.write_text(json.dumps({"host": here, "pid": int(gone.stdout), "started_at": "x"}))
    assert holder(tmp_path) is None
    lock.write_text(json.dumps({"host": "elsewhere", "pid": 12, "started_at": "x"}))
    assert holder(tmp_path) == "elsewhere:12"
    lock.write_text('{"host": "half')
    assert holder(tmp_path) is None


async def test_the_door_reads_the_lock_in_its_home(door, isolated_home):
    """`scheduler_holder` reads `$BIRDIE_HOME/scheduler.lock`."""
    assert door.scheduler_holder() is None
    (isolated_home / "scheduler.lock").write_text(json.dumps(
        {"host": socket.gethostname(), "pid": os.getpid(), "started_at": "now"}))
    assert door.scheduler_holder() == f"{socket.gethostname()}:{os.getpid()}"
