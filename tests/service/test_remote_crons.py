"""Triggers as cron jobs of a real `langgraph dev` (the offline model): a sync creates them,
syncing again keeps the unchanged, replaces the changed and deletes the gone (never a job
Birdie did not make); the remote door's rows read them back; a job that fires runs its agent
on a new thread titled as the run, which the door lists as a run. The firing is made fast by
patching the job's schedule to every second (croniter's sixth field) on a server polling its
crons every second: a real minute schedule would take a minute."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from birdie_tui.schedules.models import Trigger
from birdie_tui.service.remote.crons import birdie_jobs, delete_jobs, job_spec, sync_jobs, \
    SyncReport
from tests.server.test_served_agents import write_agent
from tests.service.conftest import remote_doors

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module")
def cron_server(tmp_path_factory):
    """A server whose home has the Planner agent, checking its crons every second."""
    from tests.lg_server import start_server

    tmp = tmp_path_factory.mktemp("cron-server")
    write_agent(tmp / "home", "Planner", "Plan {{ path }}", skills="planning")
    server = start_server(home=tmp / "home", workdir=tmp / "work",
                          env={"CRON_SCHEDULER_SLEEP_TIME": "1"})
    yield server
    server.stop()


@pytest.fixture
def client(cron_server):
    from langgraph_sdk import get_sync_client

    sync = get_sync_client(url=cron_server.url, api_key=None)
    yield sync
    for job in sync.crons.search(limit=100):
        sync.crons.delete(job["cron_id"])
    sync.close()


def planner(seconds: float = 300, key: str = "Planner:every") -> Trigger:
    return Trigger(key=key, kind="every", agent="Planner", every_s=seconds,
                   inputs={"path": "notes"}, path=Path("/x/planner/AGENT.MD"), line=4)


def keys(client) -> dict[str, str]:
    return {j["metadata"]["birdie_trigger"]: j["schedule"] for j in birdie_jobs(client)}


def test_sync_creates_keeps_replaces_and_deletes_only_birdies_jobs(client):
    """First sync: created. Again: kept (same job id). A changed interval: replaced by a new
    job. A trigger gone: its job deleted. A job without Birdie's metadata is left alone, and
    `delete_jobs` (agents stop) removes Birdie's only."""
    foreign = client.crons.create("birdie", schedule="0 3 * * *", metadata={"owner": "ops"})
    nightly = Trigger(key="schedule:nightly", kind="cron", agent=None, prompt="tidy up",
                      cron="0 2 * * *", tz="Europe/Paris")
    first = sync_jobs(client, [job_spec(planner(), "Plan notes"),
                               job_spec(nightly, "tidy up")], SyncReport())
    assert sorted(first.created) == ["Planner:every", "schedule:nightly"]
    assert keys(client) == {"Planner:every": "*/5 * * * *", "schedule:nightly": "0 2 * * *"}
    ids = {j["cron_id"] for j in birdie_jobs(client)}
    [paris] = [j for j in birdie_jobs(client) if j["metadata"]["birdie_trigger"] ==
               "schedule:nightly"]
    assert paris["timezone"] == "Europe/Paris" and paris["on_run_completed"] == "keep"

    again = sync_jobs(client, [job_spec(planner(), "Plan notes"),
                               job_spec(nightly, "tidy up")], SyncReport())
    assert sorted(again.kept) == ["Planner:every", "schedule:nightly"]
    assert not (again.created or again.replaced or again.deleted)
    assert {j["cron_id"] for j in birdie_jobs(client)} == ids

    changed = sync_jobs(client, [job_spec(planner(600), "Plan notes")], SyncReport())
    assert changed.replaced == ["Planner:every"] and changed.deleted == ["schedule:nightly"]
    assert keys(client) == {"Planner:every": "*/10 * * * *"}
    assert not {j["cron_id"] for j in birdie_jobs(client)} & ids

    assert delete_jobs(client) == ["Planner:every"]
    assert birdie_jobs(client) == []
    assert [j["cron_id"] for j in client.crons.search(limit=100)] == [foreign["cron_id"]]


async def test_the_remote_door_shows_the_jobs_and_a_fired_run(cron_server, client):
    """trigger_rows: the job's trigger and its next run; scheduler_holder "server". Fired
    (schedule patched to every second), the run is a new thread titled `Planner · every 5m`,
    run as Planner (no filesystem tools), kept, and listed by scheduled_runs and the session
    browser; rows name it as the trigger's last run."""
    async for open_door in remote_doors(cron_server.url):
        door = await open_door()
        assert door.trigger_rows() == [] and door.scheduler_holder() is None
        sync_jobs(client, [job_spec(planner(), "Plan notes")], SyncReport())
        [row] = door.trigger_rows()
        assert row.trigger.key == "Planner:every" and row.trigger.describe() == "every 5m"
        assert row.next_fire is not None and row.last is None
        assert door.scheduler_holder() == "server"

        [job] = birdie_jobs(client)
        client.crons.update(job["cron_id"], schedule="* * * * * *")
        runs = wait_for_runs(door, 1)
        client.crons.update(job["cron_id"], enabled=False)
        run = runs[-1]
        assert (run.agent, run.trigger_key, run.trigger) == ("Planner", "Planner:every",
                                                            "every 5m")
        assert run.answer and "Plan notes" in run.answer
        offered = next(line for line in run.answer.splitlines() if "Tools I could call" in line)
        assert "write_file" not in offered
        sessions = {row.id: row.title for row in door.session_rows()}
        assert sessions[run.session_id] == "Planner · every 5m"
        [row] = door.trigger_rows()
        assert row.last is not None and row.last.session_id in sessions


def wait_for_runs(door, count: int, timeout: float = 60.0) -> list:
    """The door's finished runs, once `count` are done (bounded: a hang fails, never waits)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = [r for r in door.scheduled_runs() if r.status == "done"]
        if len(done) >= count:
            return done
        time.sleep(0.5)
    raise AssertionError(f"no {count} finished runs in {timeout:.0f} s: "
                         f"{door.scheduled_runs()}")
