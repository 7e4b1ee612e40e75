"""Triggers as a server's cron jobs, without a server: which intervals are a cron schedule
exactly, what is refused and why, what a job carries (title, approval, the run marker, the
agent's rendered prompt) and that its digest changes exactly when the job would."""

from __future__ import annotations

from pathlib import Path

import pytest

from birdie_tui.schedules.models import Trigger
from birdie_tui.service.remote.crons import (Refused, every_schedule, job_schedule, job_spec,
                                             job_trigger, run_record)


def every(seconds: float, key: str = "digest:every") -> Trigger:
    return Trigger(key=key, kind="every", agent="digest", every_s=seconds,
                   path=Path("/a/digest.md"), line=3)


@pytest.mark.parametrize(("seconds", "schedule"), [
    (60, "* * * * *"), (300, "*/5 * * * *"), (1800, "*/30 * * * *"), (3600, "0 * * * *"),
    (6 * 3600, "0 */6 * * *"), (86400, "0 0 * * *")])
def test_intervals_a_cron_field_says_exactly(seconds, schedule):
    """Whole minutes dividing an hour, whole hours dividing a day, one day."""
    assert every_schedule(seconds) == schedule


@pytest.mark.parametrize("seconds", [1, 30, 90, 7 * 60, 45 * 60, 5 * 3600, 2 * 86400, 60.5])
def test_other_intervals_are_none(seconds):
    """1s, 30s, 1m30s, 7m, 45m, 5h, 2d, a fraction: no cron schedule fires exactly so."""
    assert every_schedule(seconds) is None


def test_refusals_name_why():
    """A watch trigger needs a local scheduler; an odd interval says what a server accepts."""
    with pytest.raises(Refused, match="needs a local `agents start`"):
        job_schedule(Trigger(key="w:watch", kind="watch", agent="w", watch=("drafts/*",)))
    with pytest.raises(Refused, match="every 7m is no cron schedule"):
        job_schedule(every(420))


def test_a_cron_keeps_its_zone_and_one_without_takes_this_machines():
    """`tz:` is sent as it is; none: this machine's zone (the wall clock a local scheduler
    reads); an interval runs in UTC (it has no phase)."""
    cron = Trigger(key="d:cron", kind="cron", agent="d", cron="0 9 * * *", tz="Europe/Paris")
    assert job_schedule(cron) == ("0 9 * * *", "Europe/Paris")
    bare = Trigger(key="d:cron", kind="cron", agent="d", cron="0 9 * * *")
    assert job_schedule(bare, zone=lambda: "Asia/Tokyo") == ("0 9 * * *", "Asia/Tokyo")
    assert job_schedule(every(300), zone=lambda: "Asia/Tokyo") == ("*/5 * * * *", "UTC")


def test_a_job_carries_the_runs_session_marks_and_its_digest_follows_it():
    """Title `<agent> · <trigger>`, the thread's mode (read-only: ask, with no one to ask),
    the allow rules, the run marker the served graph reads, the prompt; the digest is stable
    and changes with the prompt or the schedule; the trigger reads back from the job."""
    trigger = Trigger(key="digest:every", kind="every", agent="digest", every_s=1800,
                      allow=("read_file",), inputs={"topic": "news"})
    spec = job_spec(trigger, "summarise news")
    grants = spec.metadata["birdie"]
    assert grants["title"] == "digest · every 30m" and grants["approval_mode"] == "ask"
    assert grants["approval_rules"] == ["read_file"]
    assert grants["run"] == {"trigger_key": "digest:every", "agent": "digest",
                             "trigger": "every 30m", "approval": "read-only"}
    assert spec.metadata["birdie_trigger"] == "digest:every"
    assert spec.metadata["birdie_agent"] == "digest"
    assert spec.input == {"messages": [{"type": "human", "content": "summarise news"}]}
    assert job_spec(trigger, "summarise news").digest == spec.digest
    assert job_spec(trigger, "summarise sport").digest != spec.digest
    assert job_spec(every(3600), "summarise news").digest != spec.digest
    back = job_trigger({"metadata": spec.metadata, "schedule": spec.schedule})
    assert (back.key, back.kind, back.every_s, back.describe()) == (
        "digest:every", "every", 1800, "every 30m")
    assert back.inputs == {"topic": "news"} and back.allow == ("read_file",)


def test_a_settings_schedule_is_titled_by_its_name():
    """No agent: the title is the schedule's name and the run marker names no agent."""
    trigger = Trigger(key="schedule:inbox", kind="cron", agent=None, prompt="check the inbox",
                      cron="0 8 * * 1-5", tz="UTC")
    spec = job_spec(trigger, "check the inbox")
    assert spec.metadata["birdie"]["title"] == "inbox · cron 0 8 * * 1-5 (UTC)"
    assert spec.metadata["birdie"]["run"]["agent"] is None


def test_a_run_thread_reads_as_a_run_record():
    """Status from the thread's (interrupted: pending), tokens summed from the AI messages'
    usage, the answer only when done, the trigger from the run marker."""
    meta = job_spec(every(300), "go").metadata
    thread = {"thread_id": "t-1", "status": "idle", "metadata": meta,
              "created_at": "2026-01-01T09:00:00+00:00",
              "updated_at": "2026-01-01T09:00:05+00:00",
              "values": {"messages": [
                  {"type": "human", "content": "go"},
                  {"type": "ai", "content": "done it",
                   "usage_metadata": {"input_tokens": 10, "output_tokens": 4}}]}}
    record = run_record(thread, "srv:2024")
    assert (record.status, record.session_id, record.trigger_key, record.trigger) == (
        "done", "t-1", "digest:every", "every 5m")
    assert (record.input_tokens, record.output_tokens, record.answer) == (10, 4, "done it")
    assert record.duration_s == 5 and record.host == "srv:2024"
    pending = run_record({**thread, "status": "interrupted"})
    assert pending.status == "pending" and pending.answer is None
    assert pending.finished_at is None
