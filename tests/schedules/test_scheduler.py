"""The scheduler in-process: APScheduler's firings and watchfiles' bursts driving a fake run
callable, over a run log (claims, skipped, missed, failed)."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from birdie_tui.schedules.models import RunRecord, Trigger
from birdie_tui.schedules.scheduler import Scheduler
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import open_run_log


class FakeRuns:
    """The run callable: records each call and a done RunRecord in the log."""

    def __init__(self, log, delay: float = 0.0, crash: bool = False) -> None:
        self.log, self.delay, self.crash = log, delay, crash
        self.calls: list[tuple[str, datetime, tuple[str, ...]]] = []

    async def __call__(self, trigger: Trigger, fire_time: datetime,
                       paths: tuple[str, ...]) -> RunRecord:
        self.calls.append((trigger.key, fire_time, paths))
        start = datetime.now(timezone.utc)
        record = RunRecord(run_id=uuid.uuid4().hex, trigger_key=trigger.key,
                           agent=trigger.agent, trigger=trigger.describe(), user="u",
                           status="running", started_at=start, fire_time=fire_time,
                           changed_paths=paths)
        self.log.save(record)
        if self.crash:
            raise RuntimeError("boom")
        try:
            await asyncio.sleep(self.delay)
        except asyncio.CancelledError:
            self.log.save(record.ended(status="cancelled", finished_at=datetime.now(timezone.utc)))
            raise
        done = record.ended(status="done", finished_at=datetime.now(timezone.utc))
        self.log.save(done)
        return done


def _run_log(tmp_path: Path):
    """The embedded run log of a home of the test's own."""
    return open_run_log(BirdiePaths(tmp_path / "home"), "u", None)


async def _until(check, timeout: float = 10.0) -> None:
    """Wait (bounded) until `check()` is true."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def _every(key: str = "digest:every", seconds: float = 1.0) -> Trigger:
    return Trigger(key=key, kind="every", agent="digest", every_s=seconds)


async def test_an_every_trigger_fires_each_second_once_per_firing(tmp_path: Path) -> None:
    """`every: 1s` runs three times in about three seconds, each with its own fire time."""
    log = _run_log(tmp_path)
    runs = FakeRuns(log)
    sched = Scheduler([_every()], run=runs, run_log=log, owner="h:1")
    await sched.start()
    try:
        await _until(lambda: len(runs.calls) >= 3, timeout=8)
    finally:
        await sched.stop()
    times = [fire for _, fire, _ in runs.calls]
    assert len(set(times)) == len(times)
    assert all(t.microsecond == 0 for t in times)
    assert [r.status for r in log.list(limit=10)].count("done") >= 3


async def test_an_overlapping_firing_is_skipped_naming_the_running_run(tmp_path: Path) -> None:
    """A slow run still going when the next seconds fire: each of those firings is recorded
    skipped, naming the running run's id; no second run starts."""
    log = _run_log(tmp_path)
    runs = FakeRuns(log, delay=4)
    sched = Scheduler([_every()], run=runs, run_log=log, owner="h:1")
    await sched.start()
    try:
        await _until(lambda: [r.status for r in log.list(limit=20)].count("skipped") >= 2)
    finally:
        await sched.stop()
    records = log.list(limit=20)
    first = next(r for r in records if r.status != "skipped")
    skipped = [r for r in records if r.status == "skipped"]
    assert all(r.error == f"the previous run (id {first.run_id}) was still going"
               for r in skipped)
    assert len(runs.calls) == 1


async def test_stop_cancels_a_running_run_and_it_records_cancelled(tmp_path: Path) -> None:
    """Stopping the scheduler cancels the run in progress; its record says cancelled."""
    log = _run_log(tmp_path)
    runs = FakeRuns(log, delay=30)
    sched = Scheduler([_every()], run=runs, run_log=log, owner="h:1")
    await sched.start()
    await _until(lambda: bool(runs.calls))
    started = time.monotonic()
    await sched.stop()
    assert time.monotonic() - started < 5
    assert [r.status for r in log.list(limit=5)] == ["cancelled"]


async def test_a_crashing_run_is_recorded_failed_and_the_scheduler_goes_on(tmp_path: Path) -> None:
    """The run callable raising is a failed record, and the next firing still runs."""
    log = _run_log(tmp_path)
    runs = FakeRuns(log, crash=True)
    sched = Scheduler([_every()], run=runs, run_log=log, owner="h:1")
    await sched.start()
    try:
        await _until(lambda: len(runs.calls) >= 2)
    finally:
        await sched.stop()
    failed = [r for r in log.list(limit=10) if r.status == "failed"]
    assert failed and "the run crashed: RuntimeError: boom" in (failed[0].error or "")


async def test_two_schedulers_on_one_log_run_each_firing_once(tmp_path: Path) -> None:
    """Two schedulers sharing the run log: the claim lets one of them run each firing."""
    log = _run_log(tmp_path)
    runs_a, runs_b = FakeRuns(log), FakeRuns(log)
    a = Scheduler([_every()], run=runs_a, run_log=log, owner="a:1")
    b = Scheduler([_every()], run=runs_b, run_log=log, owner="b:1")
    await a.start()
    await b.start()
    try:
        await _until(lambda: len(runs_a.calls) + len(runs_b.calls) >= 4)
    finally:
        await a.stop()
        await b.stop()
    fires = [f for _, f, _ in runs_a.calls + runs_b.calls]
    assert len(fires) == len(set(fires))


async def test_firings_missed_while_no_scheduler_ran_are_recorded_once(tmp_path: Path) -> None:
    """A trigger last run two hours ago with `every: 10m`: one missed record counting the
    firings, none of them run."""
    log = _run_log(tmp_path)
    trigger = _every("digest:every", 600)
    long_ago = datetime.now(timezone.utc) - timedelta(hours=2)
    log.save(RunRecord(run_id="old", trigger_key=trigger.key, agent="digest",
                       trigger=trigger.describe(), user="u", status="done",
                       started_at=long_ago, finished_at=long_ago,
                       fire_time=long_ago.replace(microsecond=0)))
    runs = FakeRuns(log)
    sched = Scheduler([trigger], run=runs, run_log=log, owner="h:1")
    await sched.start()
    await sched.stop()
    missed = [r for r in log.list(limit=5) if r.status == "missed"]
    assert len(missed) == 1 and runs.calls == []
    assert "firings missed" in (missed[0].error or "")
    count = int((missed[0].error or "").split(" ")[0])
    assert 11 <= count <= 12


async def test_a_watch_trigger_runs_once_per_burst_with_its_paths(tmp_path: Path) -> None:
    """Several files written quickly are one run listing them; a second burst is another."""
    drafts = tmp_path / "drafts"
    drafts.mkdir()
    log = _run_log(tmp_path)
    runs = FakeRuns(log)
    trigger = Trigger(key="review:watch", kind="watch", agent="review",
                      watch=(str(drafts / "*.md"),), debounce_s=0.5)
    sched = Scheduler([trigger], run=runs, run_log=log, owner="h:1")
    await sched.start()
    try:
        await asyncio.sleep(0.3)
        for name in ("b.md", "a.md", "c.md", "skip.txt"):
            (drafts / name).write_text("x")
            await asyncio.sleep(0.05)
        await _until(lambda: len(runs.calls) == 1)
        await asyncio.sleep(1.0)
        assert len(runs.calls) == 1
        (drafts / "d.md").write_text("y")
        await _until(lambda: len(runs.calls) == 2)
    finally:
        await sched.stop()
    assert runs.calls[0][2] == tuple(str(drafts / n) for n in ("a.md", "b.md", "c.md"))
    assert runs.calls[1][2] == (str(drafts / "d.md"),)


async def test_a_missing_watch_folder_is_waited_for(tmp_path: Path) -> None:
    """A watch folder that does not exist is said; once made, the trigger fires."""
    lines: list[str] = []
    log = _run_log(tmp_path)
    runs = FakeRuns(log)
    inbox = tmp_path / "inbox"
    trigger = Trigger(key="inbox:watch", kind="watch", agent="inbox", watch=(str(inbox),),
                      debounce_s=0.2)
    sched = Scheduler([trigger], run=runs, run_log=log, owner="h:1", say=lines.append)
    sched._hub.appear_poll_s = 0.2
    await sched.start()
    try:
        assert any("does not exist" in line and str(inbox) in line for line in lines)
        inbox.mkdir()
        await _until(lambda: len(runs.calls) == 1)
    finally:
        await sched.stop()
    assert runs.calls[0][2] == (str(inbox),)


async def test_triggers_read_again_are_added_changed_and_removed(tmp_path: Path) -> None:
    """`apply` with an added `every: 1s` schedules it; applying without it stops its firings;
    a changed watch trigger watches its new folder."""
    log = _run_log(tmp_path)
    runs = FakeRuns(log)
    yearly = Trigger(key="yearly:cron", kind="cron", agent="yearly", cron="0 3 1 1 *")
    sched = Scheduler([yearly], run=runs, run_log=log, owner="h:1")
    await sched.start()
    try:
        added, removed, changed = await sched.apply([yearly, _every()])
        assert (added, removed, changed) == (["digest:every"], [], [])
        await _until(lambda: len(runs.calls) >= 1)
        await sched.apply([yearly])
        await asyncio.sleep(0.2)
        count = len(runs.calls)
        await asyncio.sleep(2.2)
        assert len(runs.calls) == count
        old, new = tmp_path / "old", tmp_path / "new"
        old.mkdir()
        new.mkdir()
        watch = Trigger(key="w:watch", kind="watch", agent="w", watch=(str(old),),
                        debounce_s=0.2)
        await sched.apply([yearly, watch])
        *_, changed = await sched.apply([yearly, Trigger(
            key="w:watch", kind="watch", agent="w", watch=(str(new),), debounce_s=0.2)])
        assert changed == ["w:watch"]
        await asyncio.sleep(0.5)
        (old / "x.md").write_text("x")
        (new / "y.md").write_text("y")
        await _until(lambda: any(paths for _, _, paths in runs.calls))
    finally:
        await sched.stop()
    assert [paths for _, _, paths in runs.calls if paths] == [(str(new / "y.md"),)]
    assert set(sched.triggers) == {"yearly:cron", "w:watch"}


@pytest.mark.parametrize(("expr", "weekday"), [("0 9 * * 0", 6), ("0 9 * * 7", 6),
                                               ("0 9 * * 1", 0), ("0 9 * * 5-6", 4),
                                               ("0 9 * * sat", 5), ("0 9 * * 2,1", 1)])
def test_cron_weekdays_are_counted_as_crontab_counts_them(expr: str, weekday: int) -> None:
    """APScheduler 3 counts weekday 0 as Monday; crontab (and a LangGraph server's cron jobs)
    as Sunday: the triggers fire on crontab's day (Python's weekday(): Monday is 0)."""
    from birdie_tui.schedules.timing import crontab_trigger

    monday = datetime(2026, 11, 23, 10, tzinfo=timezone.utc)
    fire = crontab_trigger(expr, "UTC").get_next_fire_time(None, monday)
    assert fire is not None and fire.weekday() == weekday


def test_a_weekday_past_seven_is_refused() -> None:
    """`8` is no day of the week: a ValueError saying so."""
    from birdie_tui.schedules.timing import crontab_trigger

    with pytest.raises(ValueError, match="out of range"):
        crontab_trigger("0 9 * * 8")
