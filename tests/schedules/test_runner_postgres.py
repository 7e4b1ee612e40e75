"""A run on a shared PostgreSQL database (a real server): its session and its record are in
the database, and the pending run answered later through the door is settled there."""

from __future__ import annotations

import dataclasses

import pytest

from birdie_tui.schedules.runner import run_trigger
from birdie_tui.service import local_birdie
from birdie_tui.service.rows import ApprovalAnswer
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import open_run_log

from .conftest import agent_trigger

pytestmark = pytest.mark.integration


async def test_a_run_on_postgres_is_a_database_session_with_its_record(options, folders,
                                                                         pg_url, tmp_path,
                                                                         isolated_home):
    """The run's session is in the database (not the home), its record in the database's run
    log; answering it later through the door settles that record."""
    log = open_run_log(BirdiePaths.from_env(), "tester", pg_url)
    canary = tmp_path / "canary"
    try:
        record = await run_trigger(
            agent_trigger("Toucher", inputs={"path": str(canary)}),
            options=dataclasses.replace(options, database_url=pg_url), run_log=log)
        assert record.status == "pending", record.error
        assert not (isolated_home / "sessions" / "tester" / "runs.db").exists()
        assert log.for_session(record.session_id) == record

        skills, agents = folders
        birdie = local_birdie(skills_dirs=[skills], agents_dirs=[agents], database_url=pg_url)
        await birdie.start(session_id=record.session_id)
        try:
            pending = await birdie.pending_approvals()
            assert [r.name for r in pending] == ["touch_file"]
            async for _ in birdie.resume({r.id: ApprovalAnswer("allow") for r in pending}):
                pass
            assert [r.run_id for r in birdie.scheduled_runs()] == [record.run_id]
        finally:
            await birdie.close()
        assert canary.exists()
        assert log.get(record.run_id).status == "done"
    finally:
        log.close()
