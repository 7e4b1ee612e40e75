"""The front door's contract (`birdie_tui.service.protocol.Birdie`), the same tests over every
door: what the TUI relies on holds for the local engine, the fake door its tests use, and the
remote door."""

from __future__ import annotations

import pytest

from birdie_tui.events import SessionOpened, TokenStreamed, TurnDone
from birdie_tui.modes import APPROVAL_MODES
from birdie_tui.service import BirdieError
from birdie_tui.service.rows import McpServerSpec


async def test_start_opens_the_session_the_status_shows(door):
    """After `start` there is an open session: the status names it, no turn yet."""
    birdie, _ = door
    status = birdie.status()
    assert status.session_id and status.turns == 0


async def test_a_message_streams_events_that_end_in_done(door):
    """`send` yields the turn's events in order: tokens, and `done` last, carrying the reply
    the tokens spelled."""
    birdie, _ = door
    events = [event async for event in birdie.send("contract hello")]
    assert isinstance(events[-1], TurnDone) and "contract hello" in events[-1].text
    assert any(isinstance(event, TokenStreamed) for event in events)
    streamed = "".join(e.text for e in events if isinstance(e, TokenStreamed))
    assert streamed.strip() == events[-1].text.strip()


async def test_session_rows_count_the_turn(door):
    """After a turn the open session is listed, current, with one turn and the status agrees."""
    birdie, _ = door
    async for _ in birdie.send("count me"):
        pass
    sid = birdie.status().session_id
    row = next(r for r in birdie.session_rows() if r.id == sid)
    assert row.current and row.turns == 1 and birdie.status().turns == 1
    assert [item.role for item in await birdie.transcript()][:1] == ["user"]


async def test_new_and_open_session(door):
    """`new_session` opens another session and says so; `open_session` goes back to the first
    with its turn, and the listeners hear each switch."""
    birdie, heard = door
    async for _ in birdie.send("first session"):
        pass
    first = birdie.status().session_id
    await birdie.new_session()
    second = birdie.status().session_id
    assert second != first and birdie.status().turns == 0
    await birdie.open_session(first)
    assert birdie.status().session_id == first and birdie.status().turns == 1
    opened = [e.id for e in heard if isinstance(e, SessionOpened)]
    assert opened[-2:] == [second, first]


async def test_a_skill_toggle_shows_in_skill_rows(door):
    """`set_skill` flips a skill for the session and `skill_rows` shows it; flipped back, as
    before."""
    birdie, _ = door
    row = birdie.skill_rows()[0]
    changed = birdie.set_skill(row.name, not row.enabled)
    assert changed.enabled is not row.enabled
    assert next(r for r in birdie.skill_rows() if r.name == row.name).enabled is not row.enabled
    birdie.set_skill(row.name, row.enabled)
    assert next(r for r in birdie.skill_rows() if r.name == row.name).enabled is row.enabled


async def test_the_approval_mode_cycles(door):
    """`set_approval_mode()` with no mode goes to the next one, through every mode and back;
    `approval_mode` and the status agree at each step."""
    birdie, _ = door
    start = birdie.approval_mode()
    seen = [start]
    for _ in APPROVAL_MODES:
        mode = birdie.set_approval_mode()
        assert mode == birdie.approval_mode() == birdie.status().approval_mode
        seen.append(mode)
    assert seen[-1] == start and sorted(seen[:-1]) == sorted(APPROVAL_MODES)


async def test_mcp_servers_given_to_a_session_are_its_own(door):
    """`attach_mcp_servers` (`start=False`: nothing runs yet) lists each server as
    `acp:<name>` among the shown session's MCP rows and no other session's; an empty list takes
    them away. The remote door refuses in one line (its agent runs on the server)."""
    birdie, _ = door
    spec = McpServerSpec("kit", command="kit-mcp", args=("--fast",))
    if type(birdie).__name__ == "RemoteBirdie":
        with pytest.raises(BirdieError, match="not available"):
            await birdie.attach_mcp_servers([spec])
        return
    async for _ in birdie.send("a session with servers"):
        pass
    first = birdie.status().session_id
    rows = await birdie.attach_mcp_servers([spec], start=False)
    assert [(r.skill, r.state, r.enabled, r.target) for r in rows] == [
        ("acp:kit", "not started", True, "kit-mcp --fast")]
    assert [r.skill for r in birdie.mcp_rows()] == ["acp:kit"]
    await birdie.new_session()
    assert birdie.mcp_rows() == []
    await birdie.open_session(first)
    assert [r.skill for r in birdie.mcp_rows()] == ["acp:kit"]
    assert await birdie.attach_mcp_servers([]) == [] and birdie.mcp_rows() == []


async def test_an_unknown_agent_is_one_clear_error_and_nothing_changes(door):
    """Every door, the remote one included: `set_agent` on a name no agent has raises
    BirdieError naming it, says no `agents` change, and the rows stay as they were; a new
    session has no sub-agent runs."""
    birdie, heard = door
    before = birdie.agent_rows()
    heard.clear()
    with pytest.raises(BirdieError, match="unknown agent 'No-such-agent'"):
        birdie.set_agent("No-such-agent")
    assert [e.type for e in heard] == [] and birdie.agent_rows() == before
    assert birdie.agent_runs() == []
