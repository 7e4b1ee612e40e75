"""Live reload of MCP skills: a changed server file restarts the server on next use; a removed
skill's server stops."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from tests.mcp.conftest import lab_skill, of_type, status_of, turn
from tests.mcp.test_mcp_stdio import _alive

pytestmark = pytest.mark.integration


async def _gone(pid: int, timeout: float = 10.0) -> bool:
    for _ in range(int(timeout / 0.05)):
        if not _alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def server_pid(eng) -> int:
    return int(of_type(await turn(eng, "call pid"), "tool_result")[0].content)


async def test_an_edited_server_file_restarts_the_server_on_next_use(skills_root, engine_for):
    """Editing an MCP server's file stops the old server; the next use starts a new one."""
    folder = lab_skill(skills_root)
    eng = await engine_for()
    old_pid = await server_pid(eng)
    with (folder / "lab_server.py").open("a") as fh:
        fh.write("\n# edited\n")
    report = await eng.reload_skills_async([folder / "lab_server.py"])
    assert [s.name for s in report.changed] == ["lab"]
    assert await _gone(old_pid)  # the old server is closed, not leaked
    assert status_of(eng, "lab").state == "not started"
    new_pid = await server_pid(eng)
    assert new_pid != old_pid and status_of(eng, "lab").state == "running"


async def test_a_removed_mcp_skill_stops_its_server(skills_root, engine_for):
    """Removing an MCP skill stops its server and drops its tools."""
    folder = lab_skill(skills_root)
    eng = await engine_for()
    old_pid = await server_pid(eng)
    shutil.rmtree(folder)
    report = await eng.reload_skills_async([folder])
    assert [s.name for s in report.removed] == ["lab"]
    assert await _gone(old_pid)
    assert eng.mcp_status() == []
    assert "pid" not in {t.name for t in await eng.toolbox.tools()}


async def test_an_unrelated_edit_keeps_the_server(skills_root, engine_for):
    """Reloading another skill leaves a running MCP server alone."""
    lab_skill(skills_root)
    other = lab_skill(skills_root, "spare", enabled=False)
    eng = await engine_for()
    pid = await server_pid(eng)
    (other / "SKILL.MD").write_text((other / "SKILL.MD").read_text() + "\nMore words.\n")
    report = await eng.reload_skills_async([other / "SKILL.MD"])
    assert [s.name for s in report.changed] == ["spare"]
    assert _alive(pid) and await server_pid(eng) == pid
