"""A run log's rows, as both stores write them (`store.run_log`, `store.pg.run_log`): the
columns in order, times as one spelling per instant, and the record read back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from birdie_tui.schedules.models import RunRecord

__all__ = ["COLUMNS", "record_from_row", "record_row", "stamp"]

COLUMNS = ("run_id", "trigger_key", "agent", "trigger", "user", "status", "started_at",
           "finished_at", "fire_time", "session_id", "changed_paths", "input_tokens",
           "output_tokens", "cost", "error", "answer", "host")


def stamp(value: datetime | None) -> str | None:
    """`value` in UTC as ISO 8601 with microseconds (a naive one is taken as UTC): one
    spelling per instant, so two schedulers name one firing alike and text sorts as time."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _when(text: Any) -> datetime | None:
    if text is None:
        return None
    if isinstance(text, datetime):
        return text.astimezone(timezone.utc)
    return datetime.fromisoformat(str(text))


def record_row(record: RunRecord) -> tuple[Any, ...]:
    """The record's values in `COLUMNS` order, as both stores write them."""
    return (record.run_id, record.trigger_key, record.agent, record.trigger, record.user,
            record.status, stamp(record.started_at), stamp(record.finished_at),
            stamp(record.fire_time), record.session_id, json.dumps(list(record.changed_paths)),
            int(record.input_tokens), int(record.output_tokens), record.cost, record.error,
            record.answer, record.host)


def record_from_row(row: Sequence[Any]) -> RunRecord:
    """A row in `COLUMNS` order (text as written) back as a record."""
    values = dict(zip(COLUMNS, row))
    paths = values["changed_paths"]
    started = _when(values["started_at"])
    assert started is not None  # NOT NULL in both schemas
    return RunRecord(
        run_id=values["run_id"], trigger_key=values["trigger_key"], agent=values["agent"],
        trigger=values["trigger"], user=values["user"], status=values["status"],
        started_at=started, finished_at=_when(values["finished_at"]),
        fire_time=_when(values["fire_time"]), session_id=values["session_id"],
        changed_paths=tuple(json.loads(paths) if isinstance(paths, str) else paths or ()),
        input_tokens=values["input_tokens"] or 0, output_tokens=values["output_tokens"] or 0,
        cost=values["cost"], error=values["error"], answer=values["answer"],
        host=values["host"] or "")
