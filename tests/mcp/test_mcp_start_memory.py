"""A server that failed to start is remembered as failed (5 min): the next turns, and the next
processes, do not start it again; a toggle off/on, an edit of its SKILL.MD or /mcp restart
retry at once. Each test server appends a line to a launch log each time it is started."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from birdie_tui.agent.engine import Engine

from ..cli.helpers import run_cli
from .conftest import SERVERS, make_engine, mcp_skill, status_of, turn

pytestmark = pytest.mark.integration

MINUTE = 60


def exit_skill(root: Path, name: str, launches: Path, **server) -> Path:
    """A server that exits at once with 'EXAMPLE_API_KEY is not set'."""
    return mcp_skill(root, name, {"command": "python", "args": [
        str(SERVERS / "exit_server.py"), str(launches)], **server})


def launched(launches: Path) -> int:
    return len(launches.read_text().splitlines()) if launches.exists() else 0


async def fresh_engine(skills_root: Path) -> Engine:
    eng = make_engine(skills_root)
    await eng.start()
    await eng.open_session()
    return eng


async def test_a_failed_start_is_remembered_until_a_toggle_an_edit_or_a_restart(
        skills_root, engine_for, tmp_path):
    """A failed server is not started again on the next turn; its error says it is remembered
    and for how long; switching the skill off and on, editing its SKILL.MD (live reload) and
    /mcp restart each start it again at once."""
    launches = tmp_path / "launches.log"
    folder = exit_skill(skills_root, "dead", launches)
    eng = await engine_for()
    assert (await turn(eng, "hello"))[-1].type == "done"
    assert launched(launches) == 1
    status = status_of(eng, "dead")
    assert status.state == "failed" and "EXAMPLE_API_KEY is not set" in status.error
    assert "remembered for 5 min" in status.error and "/mcp restart" in status.error
    assert status.retry_at is not None and status.retry_at > time.time() + 4 * MINUTE
    assert "retried after" in status.describe()

    await turn(eng, "hello again")
    assert launched(launches) == 1  # remembered: not started on every turn

    eng.set_skill_enabled("dead", False)
    assert status_of(eng, "dead").state == "not started"  # seen switched off: forgotten
    eng.set_skill_enabled("dead", True)
    await turn(eng, "back on")
    assert launched(launches) == 2

    (folder / "SKILL.MD").write_text((folder / "SKILL.MD").read_text() + "\nEdited.\n")
    await eng.reload_skills_async([folder / "SKILL.MD"])
    await turn(eng, "after the edit")
    assert launched(launches) == 3

    await eng.restart_mcp("dead")
    assert launched(launches) == 4 and status_of(eng, "dead").state == "failed"


async def test_the_next_process_remembers_the_failure(skills_root, isolated_home, tmp_path,
                                                       monkeypatch):
    """A failure is written to $BIRDIE_HOME/mcp_failures.json (a hash of the command line, no
    command line or env values): the next engine does not start the server and says when it
    will; an edit of the SKILL.MD, even with no process watching, retries at once."""
    monkeypatch.setenv("DEAD_TOKEN", "tok-0123456789-secret")
    launches = tmp_path / "launches.log"
    folder = exit_skill(skills_root, "dead", launches, env={"TOKEN": "${DEAD_TOKEN}"})
    first = await fresh_engine(skills_root)
    try:
        await turn(first, "hello")
    finally:
        await first.aclose()
    assert launched(launches) == 1
    record = (isolated_home / "mcp_failures.json").read_text()
    assert "dead" in record and "EXAMPLE_API_KEY" in record
    assert "tok-0123456789-secret" not in record and str(SERVERS) not in record

    second = await fresh_engine(skills_root)
    try:
        await turn(second, "hello")
        assert launched(launches) == 1
        status = status_of(second, "dead")
        assert status.state == "failed" and "remembered from a run at" in status.error
        assert "retried after" in status.error
    finally:
        await second.aclose()

    skill_file = folder / "SKILL.MD"
    stamp = skill_file.stat().st_mtime_ns + 1_000_000_000
    os.utime(skill_file, ns=(stamp, stamp))  # edited (the content may well be the same)
    third = await fresh_engine(skills_root)
    try:
        await turn(third, "hello")
        assert launched(launches) == 2
    finally:
        await third.aclose()


async def test_a_damaged_failure_file_is_ignored_and_rewritten(skills_root, isolated_home,
                                                               tmp_path):
    """A damaged mcp_failures.json never stops a server from starting; it is rewritten."""
    (isolated_home / "mcp_failures.json").write_text("{not json")
    launches = tmp_path / "launches.log"
    exit_skill(skills_root, "dead", launches)
    eng = await fresh_engine(skills_root)
    try:
        await turn(eng, "hello")
    finally:
        await eng.aclose()
    assert launched(launches) == 1
    data = json.loads((isolated_home / "mcp_failures.json").read_text())
    assert [r["skill"] for r in data["servers"].values()] == ["dead"]


@pytest.mark.slow
def test_the_second_print_does_not_start_dead_servers_again(skills_root, isolated_home,
                                                             tmp_path):
    """`--print` twice with a server that hangs on start and one that exits at once: the first
    run tries both (and still answers), the second starts neither and answers at once."""
    hang_log, exit_log = tmp_path / "hang.log", tmp_path / "exit.log"
    mcp_skill(skills_root, "hang", {"command": "python", "args": [
        str(SERVERS / "hang_server.py"), str(hang_log), "hang"]})
    exit_skill(skills_root, "quits", exit_log)
    env = {"BIRDIE_MCP_START_TIMEOUT": "2"}
    for _ in range(2):
        proc = run_cli(isolated_home, "--skills-dir", str(skills_root), "--print", "hello",
                       env=env)
        assert proc.returncode == 0, proc.stderr
        assert "Offline model" in proc.stdout
    assert [line.split()[0] for line in hang_log.read_text().splitlines()].count("launch") == 1
    assert launched(exit_log) == 1


async def test_the_sidebar_says_the_failure_is_remembered_and_a_toggle_retries(skills_root,
                                                                              tmp_path):
    """In the TUI the failed server's sidebar row says it is remembered; the next turn does not
    start it again; switching the skill off and on (as a click does) starts it at once."""
    from birdie_tui.tui import create_app
    from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

    from ..tui.app.conftest import send, wait_for, wait_ready, wait_turn

    launches = tmp_path / "launches.log"
    exit_skill(skills_root, "dead", launches)
    app = create_app(["--skills-dir", str(skills_root)], cursor_blink=False)

    def row():
        return next(r for r in app.query_one(SkillSidebar).rows if r.name == "dead")

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello")
        await wait_turn(pilot, app)
        await wait_for(pilot, lambda: row().error is not None)
        assert "EXAMPLE_API_KEY is not set" in row().error
        assert "remembered for 5 min" in row().error
        await send(pilot, app, "hello again")
        await wait_turn(pilot, app)
        assert launched(launches) == 1
        app.birdie.set_skill("dead", False)
        app.birdie.set_skill("dead", True)
        await send(pilot, app, "and now")
        await wait_turn(pilot, app)
        assert launched(launches) == 2


async def test_retry_after_zero_remembers_nothing(skills_root, engine_for, tmp_path,
                                                  monkeypatch, isolated_home):
    """BIRDIE_MCP_RETRY_AFTER=0: a failed server is tried again on every turn and no record
    is written."""
    monkeypatch.setenv("BIRDIE_MCP_RETRY_AFTER", "0")
    launches = tmp_path / "launches.log"
    exit_skill(skills_root, "dead", launches)
    eng = await engine_for()
    await turn(eng, "hello")
    await turn(eng, "hello again")
    assert launched(launches) == 2
    assert not (isolated_home / "mcp_failures.json").exists()
