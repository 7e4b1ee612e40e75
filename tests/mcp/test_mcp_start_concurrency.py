"""MCP servers start concurrently, each within the start timeout: two servers that never answer
`initialize` cost one timeout, not two. Order is read from a launch log the hanging servers
write (launch, then eof/term when they are given up on), never from a clock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from birdie_tui.mcp.manager import MCPManager
from birdie_tui.skills.loader import load_skills

from .conftest import SERVERS, lab_skill, mcp_skill, of_type, status_of, turn

pytestmark = pytest.mark.integration

START_TIMEOUT = 5.0  # the good server must start within it, even on a busy machine


def hang_skill(root: Path, name: str, launches: Path) -> Path:
    return mcp_skill(root, name, {"command": "python", "args": [
        str(SERVERS / "hang_server.py"), str(launches), name]})


def events(launches: Path) -> list[str]:
    return launches.read_text().splitlines() if launches.exists() else []


def launched_before_any_end(launches: Path) -> list[str]:
    """The servers launched before the first one was given up on (eof or term)."""
    seen = []
    for line in events(launches):
        kind, tag = line.split()[:2]
        if kind != "launch":
            break
        seen.append(tag)
    return seen


@pytest.mark.slow
async def test_start_all_starts_hanging_servers_together(skills_root, tmp_path):
    """Two hanging servers and a good one start at once: the good one runs while both others
    are still starting, both hanging ones are launched before either is given up on, and both
    end up failed with the start timeout."""
    launches = tmp_path / "launches.log"
    hang_skill(skills_root, "hang-a", launches)
    hang_skill(skills_root, "hang-b", launches)
    lab_skill(skills_root, "lab")
    skills = load_skills([skills_root]).skills
    manager = MCPManager(tmp_path / "home" / "logs", start_timeout=START_TIMEOUT, environ={})

    def states() -> dict[str, str]:
        return {s.skill: s.state for s in manager.status(skills, lambda _s: True)}

    try:
        starting = asyncio.create_task(manager.start_all(skills))
        for _ in range(int(START_TIMEOUT / 0.02)):
            if states()["lab"] in ("running", "failed") or starting.done():
                break
            await asyncio.sleep(0.02)
        assert states() == {"hang-a": "starting", "hang-b": "starting", "lab": "running"}
        await starting
        assert sorted(launched_before_any_end(launches)) == ["hang-a", "hang-b"]
        rows = {s.skill: s for s in manager.status(skills, lambda _s: True)}
        for name in ("hang-a", "hang-b"):
            assert rows[name].state == "failed" and "start timeout" in rows[name].error
        assert rows["lab"].state == "running" and "shout" in rows["lab"].tools
    finally:
        await manager.aclose()


@pytest.mark.slow
async def test_a_turn_starts_its_mcp_servers_together(skills_root, engine_for, tmp_path):
    """A turn with two hanging MCP servers and a good one waits one start timeout, not two:
    both hanging servers are launched before either is given up on, and the turn uses the
    good server's tool."""
    launches = tmp_path / "launches.log"
    hang_skill(skills_root, "hang-a", launches)
    hang_skill(skills_root, "hang-b", launches)
    lab_skill(skills_root, "lab")
    eng = await engine_for(mcp_start_timeout=START_TIMEOUT)
    result = of_type(await turn(eng, 'call shout {"text": "both at once"}'), "tool_result")
    assert result and result[0].content == "BOTH AT ONCE"
    assert status_of(eng, "hang-a").state == status_of(eng, "hang-b").state == "failed"
    assert sorted(launched_before_any_end(launches)) == ["hang-a", "hang-b"]
