"""`agent.transfer`: sessions and memory moved between an embedded home and the database, and
back, without loss: a pending approval survives, twice copies nothing twice, a taken id gets
a new one."""

from __future__ import annotations

import asyncio
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from birdie_tui.agent.pg_checkpoints import open_pg_checkpoints
from birdie_tui.agent.transfer import export_home, import_home
from birdie_tui.store import BirdiePaths, MemoryStore, SessionStore
from birdie_tui.store.pg.memory import PgMemoryStore
from birdie_tui.store.pg.sessions import PgSessionStore

from ..agent.conftest import SKILLS
from ..cli.helpers import events_of, run_cli

pytestmark = pytest.mark.integration

GUARDED = textwrap.dedent(SKILLS["guarded/SKILL.MD"]).lstrip()


@pytest.fixture
def skills(tmp_path) -> Path:
    folder = tmp_path / "skills" / "guarded"
    folder.mkdir(parents=True)
    (folder / "SKILL.MD").write_text(GUARDED)
    return tmp_path / "skills"


def pending_session(home: Path, skills: Path, canary: Path) -> str:
    """A session of ours whose turn waits for an approval (a real `--print` run)."""
    waiting = run_cli(home, "--print", "call touch_file " + json.dumps({"path": str(canary)}),
                      "--skills-dir", str(skills), "--output-format", "stream-json")
    assert waiting.returncode == 4, waiting.stderr
    return events_of(waiting)[0]["id"]


def interrupted(url: str, sid: str) -> bool:
    async def run() -> bool:
        cps = await open_pg_checkpoints(url)
        try:
            return not await cps.no_interrupt_written(sid)
        finally:
            await cps.aclose()
    return asyncio.run(run())


@pytest.mark.slow
def test_a_pending_approval_survives_the_round_trip(pg_url, skills, tmp_path):
    """Import, then export to a fresh home: the step still waits, and `--approve` there runs
    the call and finishes the turn. Memory and every key of the JSON come along."""
    home, back = tmp_path / "home", tmp_path / "back"
    canary = tmp_path / "canary"
    sid = pending_session(home, skills, canary)
    store = SessionStore(BirdiePaths(home), "tester")
    meta = store.load(sid)
    meta.extra["from_the_future"] = {"kept": True}
    store.save(meta)
    MemoryStore(BirdiePaths(home), "tester").add("likes tea")
    original = json.loads((home / "sessions" / "tester" / f"{sid}.json").read_text())

    report = asyncio.run(import_home(home, pg_url))
    assert (report.moved, report.renamed, report.problems, report.notes) == ([sid], {}, [], 1)
    assert PgSessionStore(pg_url, "tester").load(sid).to_dict() == meta.to_dict()
    assert interrupted(pg_url, sid)
    assert [e.content for e in PgMemoryStore(pg_url, "tester").entries()] == ["likes tea"]

    out = asyncio.run(export_home(back, pg_url))
    assert (out.moved, out.problems, out.notes) == ([sid], [], 1)
    assert json.loads((back / "sessions" / "tester" / f"{sid}.json").read_text()) == original
    answered = run_cli(back, "--print", "--session-id", sid, "--approve", "all",
                       "--skills-dir", str(skills), "--output-format", "stream-json")
    assert answered.returncode == 0, answered.stderr
    assert events_of(answered)[-1]["type"] == "done" and canary.exists()


def test_twice_copies_nothing_twice_and_a_taken_id_is_renamed(pg_url, tmp_path):
    """A second import skips what is there; a different session already holding the id in
    the database gets the next free id of its day, and exports likewise."""
    home = tmp_path / "home"
    local = SessionStore(BirdiePaths(home), "tester")
    mine = local.create()
    local.set_title(mine, "from the laptop")
    theirs = PgSessionStore(pg_url, "tester").create()  # the same id, another session
    assert theirs.id == mine.id

    first = asyncio.run(import_home(home, pg_url))
    new_id = first.renamed[mine.id]
    assert first.moved == [new_id] and new_id != mine.id
    assert PgSessionStore(pg_url, "tester").load(new_id).title == "from the laptop"
    second = asyncio.run(import_home(home, pg_url))
    assert (second.moved, second.skipped, second.renamed) == ([], [mine.id], {mine.id: new_id})
    assert len(PgSessionStore(pg_url, "x").summaries(include_empty=True)) == 2

    back = tmp_path / "back"
    shutil.copytree(home, back)  # the laptop's session is there already, under its own id
    out = asyncio.run(export_home(back, pg_url))
    assert out.skipped == [new_id] and out.renamed[new_id] == mine.id
    other = out.renamed[theirs.id]  # the database's own session: its id is taken here
    assert other != mine.id and other in out.moved
    again = asyncio.run(export_home(back, pg_url))
    assert again.moved == [] and sorted(again.skipped) == sorted([new_id, theirs.id])
