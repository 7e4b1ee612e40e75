"""The scheduler behind `agents start`: every trigger fired at its times (APScheduler) or on
its files' changes (`watching.py`), each firing claimed in the run log before it runs.

What happens when (docs/schedules.md, When things go wrong):

- a firing is claimed first (`RunLogProtocol.claim`, keyed by the trigger and the fire time
  to the second): of two schedulers sharing one PostgreSQL database only the winner goes on;
- overlap: the trigger's previous run (in this scheduler) is still going: the firing is
  recorded "skipped", naming that run, and nothing starts;
- missed: a firing more than `grace_s` late (the machine slept, or no scheduler ran since the
  trigger's last run) is not run; the lot is recorded once as "missed" with how many; a firing
  less late runs late (once, however many were due);
- a crash: the runner records it failed; if the run callable itself raises, the scheduler
  records it failed; either way the scheduler goes on;
- stop: firing stops, running runs are cancelled (the runner records them "cancelled", their
  sessions stay) and awaited, bounded.

The run itself is injected (`RunFn`): `runner.run_trigger` in `agents start`, a fake in tests.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from apscheduler.executors.base import BaseExecutor
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from birdie_tui.store.protocols import RunLogProtocol

from .models import RunRecord, RunStatus, Trigger
from .timing import firings_between, timed_trigger, to_second
from .watching import WatchHub

RunFn = Callable[[Trigger, datetime, tuple[str, ...]], Awaitable[RunRecord]]
Say = Callable[[str], None]

GRACE_S = 60.0  # a firing later than this is missed, not run
WAKE_CHECK_S = 30.0  # how often a jump of the wall clock (the machine slept) is looked for
STOP_WAIT_S = 5.0  # how long cancelled runs get to record themselves

log = logging.getLogger(__name__)


class _HandOff(BaseExecutor):  # type: ignore[misc]
    """APScheduler's executor seam: hands the due times of a job to the scheduler, which
    decides (missed, overlap, claim) and runs it as its own task."""

    def __init__(self, fired: Callable[[str, list[datetime]], None]) -> None:
        super().__init__()
        self._fired = fired

    def submit_job(self, job: Any, run_times: list[datetime]) -> None:
        self._fired(job.id, list(run_times))

    def _do_submit_job(self, job: Any, run_times: list[datetime]) -> None:
        self._fired(job.id, list(run_times))


class Scheduler:
    """Fires `triggers` until `stop()`; one task per running run."""

    def __init__(self, triggers: Iterable[Trigger], *, run: RunFn, run_log: RunLogProtocol,
                 owner: str, say: Say = lambda line: None, grace_s: float = GRACE_S,
                 cwd: str | None = None) -> None:
        self.triggers = {t.key: t for t in triggers if t.kind != "manual"}
        self.run, self.run_log, self.owner, self.say = run, run_log, owner, say
        self.grace_s = grace_s
        self.running: dict[str, tuple[asyncio.Task[None], str]] = {}
        self._aps: AsyncIOScheduler | None = None
        self.cwd = cwd
        self._hub = self._watch_hub()
        self._wake: asyncio.TimerHandle | None = None
        self._clock_gap = 0.0
        self._stopping = False

    # -- starting and stopping ------------------------------------------------------------

    async def start(self) -> None:
        """Schedule the timed triggers, record what was missed while no scheduler ran, and
        start watching."""
        aps = AsyncIOScheduler(timezone=timezone.utc)
        aps.add_executor(_HandOff(self._timed_fired), "handoff")
        self._aps = aps
        for trigger in self.triggers.values():
            self._schedule(trigger)
        aps.start()
        self._missed_since_last_run()
        await self._hub.start()
        self._clock_gap = time.time() - time.monotonic()
        self._wake = asyncio.get_running_loop().call_later(WAKE_CHECK_S, self._wake_check)

    def next_fires(self) -> dict[str, datetime | None]:
        """Each timed trigger's next fire time (None for watch triggers)."""
        out: dict[str, datetime | None] = {key: None for key in self.triggers}
        if self._aps is not None:
            for job in self._aps.get_jobs():
                out[job.id] = job.next_run_time
        return out

    async def stop(self, wait_s: float = STOP_WAIT_S) -> None:
        """Stop firing, cancel the running runs and give them `wait_s` to record it."""
        self._stopping = True
        if self._wake is not None:
            self._wake.cancel()
        if self._aps is not None and self._aps.running:
            self._aps.shutdown(wait=False)
        await self._hub.stop()
        tasks = [task for task, _ in self.running.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=wait_s)

    async def apply(self, triggers: Iterable[Trigger]) -> tuple[list[str], list[str], list[str]]:
        """Triggers read again (a file was edited): the added, removed and changed keys are
        scheduled, dropped and rescheduled; a run still going is left to end."""
        new = {t.key: t for t in triggers if t.kind != "manual"}
        old = self.triggers
        added = [k for k in new if k not in old]
        removed = [k for k in old if k not in new]
        changed = [k for k in new if k in old and new[k] != old[k]]
        self.triggers = new
        if self._aps is not None:
            for key in removed + changed:
                if self._aps.get_job(key) is not None:
                    self._aps.remove_job(key)
            for key in added + changed:
                self._schedule(new[key])
        if any(k in old and old[k].kind == "watch" or k in new and new[k].kind == "watch"
               for k in added + removed + changed):
            await self._hub.stop()
            self._hub = self._watch_hub()
            await self._hub.start()
        return added, removed, changed

    def _schedule(self, trigger: Trigger) -> None:
        timed = timed_trigger(trigger)
        if timed is not None and self._aps is not None:
            # coalesce off: the executor gets every due time, so missed ones are counted.
            self._aps.add_job(_never_called, timed, id=trigger.key, executor="handoff",
                              coalesce=False, misfire_grace_time=None, max_instances=1)

    def _watch_hub(self) -> WatchHub:
        return WatchHub([t for t in self.triggers.values() if t.kind == "watch"],
                        self._watch_fired, say=self.say, cwd=self.cwd)

    # -- firings --------------------------------------------------------------------------

    def _timed_fired(self, key: str, run_times: list[datetime]) -> None:
        trigger = self.triggers.get(key)
        if trigger is None or self._stopping:
            return
        now = datetime.now(timezone.utc)
        late = [t for t in run_times if (now - t).total_seconds() > self.grace_s]
        due = [t for t in run_times if t not in late]
        if late:
            self._record_missed(trigger, late, "the scheduler was not running or the "
                                "machine slept")
        if due:
            self._fire(trigger, to_second(due[-1]), ())

    def _watch_fired(self, trigger: Trigger, paths: tuple[str, ...]) -> None:
        if not self._stopping:
            self._fire(trigger, to_second(datetime.now(timezone.utc)), paths)

    def _fire(self, trigger: Trigger, fire_time: datetime, paths: tuple[str, ...]) -> None:
        if not self._claim(trigger.key, fire_time):
            return
        going = self.running.get(trigger.key)
        if going is not None and not going[0].done():
            label = self._going_id(trigger.key, going[1])
            self.running[trigger.key] = (going[0], label)
            self._record(trigger, "skipped", fire_time, paths=paths,
                         error=f"the previous run ({label}) was still going")
            return
        task = asyncio.get_running_loop().create_task(
            self._run_one(trigger, fire_time, paths), name=f"run {trigger.key}")
        self.running[trigger.key] = (task, f"started {_hms(datetime.now(timezone.utc))}")
        task.add_done_callback(self._ended)

    def _going_id(self, key: str, started: str) -> str:
        """The running run's id, as the runner logged it (the log's last record of the key
        at the first skip, kept for the next ones); else when it started."""
        if started.startswith("id "):
            return started
        last = self._last(key)
        if last is not None and last.status == "running":
            return f"id {last.run_id}"
        return started

    def _ended(self, task: asyncio.Task[None]) -> None:
        for key, (going, _) in list(self.running.items()):
            if going is task:
                del self.running[key]

    def _claim(self, key: str, fire_time: datetime) -> bool:
        try:
            return self.run_log.claim(key, fire_time, self.owner)
        except Exception as exc:  # the database went away: say so, try the next firing
            self.say(f"{key}: could not claim the firing at {_hms(fire_time)}: {exc}")
            return False

    async def _run_one(self, trigger: Trigger, fire_time: datetime,
                       paths: tuple[str, ...]) -> None:
        shown = f" ({len(paths)} changed: {', '.join(paths[:3])}{', …' if len(paths) > 3 else ''})"
        self.say(f"{_hms(datetime.now(timezone.utc))} start {trigger.key} · {trigger.describe()}"
                 + (shown if paths else ""))
        try:
            record = await self.run(trigger, fire_time, paths)
        except asyncio.CancelledError:
            self.say(f"{_hms(datetime.now(timezone.utc))} cancelled {trigger.key}")
            raise
        except Exception as exc:  # the runner records its own failures; this is a bug in it
            log.exception("run of %s crashed", trigger.key)
            record = self._record(trigger, "failed", fire_time, paths=paths,
                                  error=f"the run crashed: {type(exc).__name__}: {exc}")
        self.say(_ended_line(record))

    # -- missed firings -------------------------------------------------------------------

    def _missed_since_last_run(self) -> None:
        """Firings between a trigger's last run in the log and now, more than the grace late,
        are recorded missed; one less late runs now."""
        now = datetime.now(timezone.utc)
        for trigger in self.triggers.values():
            timed = timed_trigger(trigger)
            last = self._last(trigger.key)
            if timed is None or last is None:
                continue
            since = last.fire_time or last.started_at
            self._timed_fired(trigger.key, list(firings_between(timed, since, now)))

    def _last(self, key: str) -> RunRecord | None:
        try:
            return self.run_log.last(key)
        except Exception as exc:
            self.say(f"{key}: could not read the run log: {exc}")
            return None

    def _wake_check(self) -> None:
        """The loop's timers run on the monotonic clock, which stops while the machine sleeps:
        when the wall clock has jumped ahead, wake APScheduler so late firings are handled now."""
        gap = time.time() - time.monotonic()
        if gap - self._clock_gap > 5 and self._aps is not None and self._aps.running:
            self._aps.wakeup()
        self._clock_gap = gap
        self._wake = asyncio.get_running_loop().call_later(WAKE_CHECK_S, self._wake_check)

    def _record_missed(self, trigger: Trigger, late: Sequence[datetime], why: str) -> None:
        last = to_second(late[-1])
        if not self._claim(trigger.key, last):
            return
        first = to_second(late[0])
        count = f"{len(late)} firings" if len(late) > 1 else "1 firing"
        span = _hms(first) if len(late) == 1 else f"{first:%Y-%m-%d %H:%M:%S} to {last:%H:%M:%S}"
        self._record(trigger, "missed", last,
                     error=f"{count} missed ({span} UTC): {why}; not run")

    def _record(self, trigger: Trigger, status: RunStatus, fire_time: datetime, *,
                paths: tuple[str, ...] = (), error: str) -> RunRecord:
        now = datetime.now(timezone.utc)
        record = RunRecord(run_id=uuid.uuid4().hex, trigger_key=trigger.key,
                           agent=trigger.agent, trigger=trigger.describe(),
                           user=self.run_log.user, status=status, started_at=now,
                           finished_at=now, fire_time=fire_time, changed_paths=paths,
                           error=error, host=self.owner)
        try:
            self.run_log.save(record)
        except Exception as exc:
            self.say(f"{trigger.key}: could not write the run log: {exc}")
        if status != "failed":
            self.say(_ended_line(record))
        return record


def _never_called() -> None:  # the jobs' function: `_HandOff` runs firings, not jobs
    raise AssertionError("scheduled jobs are run by the scheduler's hand-off")


def _hms(when: datetime) -> str:
    return when.astimezone().strftime("%H:%M:%S")


def _ended_line(record: RunRecord) -> str:
    took = record.duration_s
    parts = [f"{_hms(record.finished_at or record.started_at)} {record.status} "
             f"{record.trigger_key}"]
    if took is not None and record.status not in ("skipped", "missed"):
        parts.append(f"in {took:.1f}s")
    if record.session_id:
        parts.append(f"session {record.session_id}")
    if record.error:
        parts.append(f"· {record.error}")
    return " ".join(parts)

