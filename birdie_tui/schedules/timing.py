"""When a timed trigger fires: APScheduler's triggers for `every:` and `cron:`, built one way
for the scheduler, the loader's checks and the missed-run count.

Two schedulers sharing a database must agree on a firing's time, or the per-firing claim
cannot keep them from both running it: intervals are anchored to a fixed instant (so `every:
1h` fires on the hour on every machine, whenever each was started) and fire times are
truncated to the second. The door's runs view reads the next firing from the same triggers
(`next_fire`), so what it shows is when `agents start` fires.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timezone

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from .models import Trigger

ANCHOR = datetime(2000, 1, 1, tzinfo=timezone.utc)
_DOW_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
# A day-of-week number that is not a step (`*/2` keeps its 2).
_DOW_NUMBER = re.compile(r"(?<![/\d])\d+")


def crontab_trigger(expr: str, tz: str | None = None) -> CronTrigger:
    """`CronTrigger.from_crontab`, with crontab's day numbers (0 and 7 are Sunday): APScheduler
    3 counts 0 as Monday, so numbers in the fifth field are given as names. ValueError (with
    APScheduler's reason) for a bad expression or zone."""
    fields = expr.split()
    if len(fields) == 5:
        fields[4] = _DOW_NUMBER.sub(_dow_name, fields[4])
    try:
        return CronTrigger.from_crontab(" ".join(fields), timezone=tz)
    except (ValueError, LookupError) as exc:  # an unknown zone is a LookupError subclass
        raise ValueError(str(exc).strip() or type(exc).__name__) from None


def _dow_name(match: re.Match[str]) -> str:
    number = int(match.group())
    if number > 7:
        raise ValueError(f"day of week {number} is out of range (0-7)")
    return _DOW_NAMES[number % 7]


def timed_trigger(trigger: Trigger) -> BaseTrigger | None:
    """The APScheduler trigger of an `every:` or `cron:` trigger; None for the others."""
    if trigger.kind == "every" and trigger.every_s:
        return IntervalTrigger(seconds=trigger.every_s, start_date=ANCHOR, timezone=timezone.utc)
    if trigger.kind == "cron" and trigger.cron:
        return crontab_trigger(trigger.cron, trigger.tz)
    return None


def next_fire(trigger: Trigger, now: datetime) -> datetime | None:
    """The next firing after `now` (aware), or None: a watch, a manual run, a bad expression
    (the loader's to report) or none to come. Intervals are anchored, so the last run does
    not move it."""
    try:
        timed = timed_trigger(trigger)
    except ValueError:
        return None
    if timed is None:
        return None
    fire: datetime | None = timed.get_next_fire_time(None, now)
    return fire


def to_second(when: datetime) -> datetime:
    """A fire time as the claims and the log keep it: UTC, whole seconds."""
    return when.astimezone(timezone.utc).replace(microsecond=0)


def firings_between(timed: BaseTrigger, after: datetime, until: datetime,
                    cap: int = 10_000) -> Iterator[datetime]:
    """The trigger's fire times in (after, until], at most `cap` of them (a second-long
    interval over a week away would be 600,000)."""
    fire = timed.get_next_fire_time(None, after)
    count = 0
    while fire is not None and fire <= until and count < cap:
        if fire > after:
            yield fire
            count += 1
        fire = timed.get_next_fire_time(fire, fire)
