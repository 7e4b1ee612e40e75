"""When a trigger fires next, by APScheduler's own trigger objects (no cron parser here).

`every`: one interval after the last run's start (the next boundary at or after now), or one
interval from now when it never ran; `cron`: the expression's next time in its zone (`tz:`,
else the machine's); `watch` and `manual`: None (they fire on a change or by hand).
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

from birdie_tui.schedules.models import RunRecord, Trigger


def aps_trigger(trigger: Trigger, last: RunRecord | None = None) -> Any:
    """The APScheduler trigger for `trigger` (None for watch and manual). Raises ValueError
    for an expression or zone APScheduler refuses."""
    from apscheduler.triggers.cron import CronTrigger
    from apscheduler.triggers.interval import IntervalTrigger

    if trigger.kind == "every" and trigger.every_s:
        if last is not None:
            return IntervalTrigger(seconds=trigger.every_s, start_date=last.started_at)
        return IntervalTrigger(seconds=trigger.every_s)
    if trigger.kind == "cron" and trigger.cron:
        return CronTrigger.from_crontab(trigger.cron, timezone=trigger.tz or _local_zone())
    return None


def next_fire(trigger: Trigger, last: RunRecord | None, now: datetime) -> datetime | None:
    """The next firing after `now` (aware), or None: a watch, a manual run, or none to come."""
    try:
        made = aps_trigger(trigger, last)
    except (ValueError, KeyError):  # a bad expression is the loader's to report
        return None
    if made is None:
        return None
    fire: datetime | None = made.get_next_fire_time(None, now)
    return fire


def _local_zone() -> tzinfo | None:
    return datetime.now().astimezone().tzinfo


__all__ = ["aps_trigger", "next_fire"]
