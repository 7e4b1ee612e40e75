"""MCP servers a client gives one session (ACP `mcpServers`), through the local door, the
offline model and real server processes: the bundled demo, the lab server, `mcp-server-time`
from PyPI, and a server that exits at once."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from birdie_tui.events import ApprovalDecided
from birdie_tui.service import BirdieError, local_birdie
from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest, McpServerSpec
from birdie_tui.skills.bundled import bundled_skills_dir

from .conftest import SERVERS, lab_skill, of_type

pytestmark = pytest.mark.integration

DEMO = McpServerSpec(name="demo", command=sys.executable,
                     args=(str(bundled_skills_dir() / "mcp_demo" / "server.py"),))
LAB = McpServerSpec(name="lab", command=sys.executable, args=(str(SERVERS / "lab_server.py"),))


@pytest.fixture
async def door(isolated_home, skills_root):
    """A started local door over an (almost) empty skills folder, offline model."""
    made = local_birdie(skills_dirs=[skills_root], environ={
        "BIRDIE_HOME": str(isolated_home), "USER": "tester", "LLM_VENDOR": "offline",
        "BIRDIE_MCP_START_TIMEOUT": "20"})
    await made.start()
    yield made
    await made.close()


async def send(door, text: str, **kw) -> list:
    return [event async for event in door.send(text, **kw)]


def row(door, name: str):
    return next((r for r in door.mcp_rows() if r.skill == name), None)


def gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


async def test_a_given_server_serves_its_session_and_no_other(door):
    """Given to one session, the demo's tools are that session's: the model calls them, the
    rows list them; another session has none of them, and the first has them again when it
    is shown again."""
    rows = await door.attach_mcp_servers([DEMO])
    assert [(r.skill, r.state, r.enabled) for r in rows] == [("acp:demo", "running", True)]
    assert set(rows[0].tools) == {"echo", "reverse_string"}
    assert {"echo", "reverse_string"} <= {t.name for t in await door.tools()}

    events = await send(door, 'call reverse_string {"text": "birdie"}')
    result = of_type(events, "tool_result")[0]
    assert (result.name, result.content, result.error) == ("reverse_string", "eidrib", False)
    assert events[-1].type == "done"
    first = door.status().session_id

    await door.new_session()
    assert row(door, "acp:demo") is None
    assert "reverse_string" not in {t.name for t in await door.tools()}
    events = await send(door, 'call reverse_string {"text": "birdie"}')
    assert of_type(events, "tool_call") == []  # never offered to this session's model

    await door.open_session(first)
    assert row(door, "acp:demo").state == "running"  # the same server, still running
    events = await send(door, 'call echo {"message": "back again"}')
    assert of_type(events, "tool_result")[0].content == "back again"


async def test_a_third_party_server_given_by_a_bare_command(door):
    """`mcp-server-time` from PyPI, given as a bare command (found next to this interpreter),
    answers in a turn."""
    rows = await door.attach_mcp_servers([McpServerSpec(
        name="time", command="mcp-server-time", args=("--local-timezone", "UTC"))])
    assert rows[0].state == "running", rows[0].error
    events = await send(door, 'call get_current_time {"timezone": "UTC"}')
    result = of_type(events, "tool_result")[0]
    assert not result.error and json.loads(result.content)["timezone"] == "UTC"


async def test_a_server_that_exits_at_once_fails_clearly_and_the_turn_goes_on(door, tmp_path):
    """A server that exits at start: its row says failed and why (its stderr quoted), a
    listener hears it once, and turns go on without its tools; giving it again retries."""
    heard: list = []
    door.subscribe(heard.append)
    launches = tmp_path / "launches.log"
    dead = McpServerSpec(name="dead", command=sys.executable,
                         args=(str(SERVERS / "exit_server.py"), str(launches)))
    started = time.monotonic()
    rows = await door.attach_mcp_servers([dead])
    assert time.monotonic() - started < 15  # not the start timeout: the exit is seen
    assert rows[0].state == "failed" and "EXAMPLE_API_KEY is not set" in (rows[0].error or "")
    assert "open the session again" in (rows[0].error or "")  # no SKILL.MD to edit
    assert [e.skill for e in heard if e.type == "mcp_failed"] == ["acp:dead"]
    events = await send(door, "hello")
    assert events[-1].type == "done"
    assert launches.read_text().count("launch") == 1  # remembered: not started each turn
    await door.attach_mcp_servers([dead])
    assert launches.read_text().count("launch") == 2  # given again: asked for again


async def test_a_server_dying_in_a_call_is_the_calls_error_then_it_restarts(door):
    """The lab server exits during `crash`: the call's result says so, the turn ends, and the
    next call starts it again."""
    await door.attach_mcp_servers([LAB])
    events = await send(door, "call crash")
    result = of_type(events, "tool_result")[0]
    assert result.error and "exited during the call" in result.content
    assert events[-1].type == "done"
    events = await send(door, 'call shout {"text": "again"}')
    assert of_type(events, "tool_result")[0].content == "AGAIN"
    assert row(door, "acp:lab").state == "running"


async def test_given_servers_stop_when_replaced_and_when_the_door_closes(isolated_home,
                                                                         skills_root):
    """Giving another list stops a server no longer given; closing the door reaps the rest."""
    door = local_birdie(skills_dirs=[skills_root], environ={
        "BIRDIE_HOME": str(isolated_home), "USER": "tester", "LLM_VENDOR": "offline"})
    await door.start()
    try:
        await door.attach_mcp_servers([LAB, DEMO])
        lab_pid = int(of_type(await send(door, "call pid"), "tool_result")[0].content)
        await door.attach_mcp_servers([DEMO])
        assert gone(lab_pid) and [r.skill for r in door.mcp_rows()] == ["acp:demo"]
        await door.attach_mcp_servers([LAB])
        lab_pid = int(of_type(await send(door, "call pid"), "tool_result")[0].content)
    finally:
        await door.close()
    assert gone(lab_pid)


async def test_a_given_servers_tool_is_gated_like_a_skills(isolated_home, skills_root):
    """An ask rule on a given server's tool asks, naming its server as the skill; denied, the
    tool does not run."""
    (isolated_home / "settings.json").write_text(json.dumps(
        {"permissions": {"ask": ["shout"]}}))
    door = local_birdie(skills_dirs=[skills_root], environ={
        "BIRDIE_HOME": str(isolated_home), "USER": "tester", "LLM_VENDOR": "offline"})
    await door.start()
    asked: list[ApprovalRequest] = []

    async def deny(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer("deny", reason="not now")

    try:
        await door.attach_mcp_servers([LAB])
        events = await send(door, 'call shout {"text": "hi"}', approver=deny)
        events += await send(door, 'call pid', approver=deny)  # no rule: runs unasked
    finally:
        await door.close()
    assert [(r.name, r.skill) for r in asked] == [("shout", "acp:lab")]
    assert any(isinstance(e, ApprovalDecided) for e in events)
    shout, pid = of_type(events, "tool_result")
    assert shout.error and "HI" not in shout.content
    assert not pid.error and pid.content.isdigit()


async def test_a_skill_and_a_given_server_of_the_same_name_stay_apart(door, skills_root):
    """A skill named `lab` and a server `lab` given to the session: two servers, two rows."""
    lab_skill(skills_root)
    await door.reload_skills()
    await door.attach_mcp_servers([LAB])
    first = of_type(await send(door, "call pid"), "tool_result")[0].content
    names = sorted(r.skill for r in door.mcp_rows())
    assert names == ["acp:lab", "lab"], names
    assert first.isdigit()


async def test_bad_servers_are_refused_in_one_line_and_nothing_changes(door):
    """A server that cannot be used is a one-line BirdieError; the servers given before run on."""
    await door.attach_mcp_servers([DEMO])
    for bad, words in [
        ([McpServerSpec(name="x", command="")], "has no command"),
        ([McpServerSpec(name="x", transport="http", url="ftp://h")], "http:// or https://"),
        ([McpServerSpec(name=" ", command="true")], "without a name"),
        ([DEMO, DEMO], "two MCP servers are named"),
    ]:
        with pytest.raises(BirdieError, match=words):
            await door.attach_mcp_servers(bad)
    assert row(door, "acp:demo").state == "running"


async def test_a_server_given_to_a_new_session_stays_when_it_is_saved(door):
    """Given before the first message (the session is not written yet), the servers stay
    with the session once its first turn writes it."""
    await door.attach_mcp_servers([DEMO], start=False)
    assert row(door, "acp:demo").state == "not started"
    events = await send(door, 'call echo {"message": "first"}')
    assert of_type(events, "tool_result")[0].content == "first"
    assert row(door, "acp:demo").state == "running"


async def test_restart_mcp_restarts_a_given_server(door):
    """`/mcp restart acp:<name>` stops the given server and starts a new process."""
    await door.attach_mcp_servers([LAB])
    before = of_type(await send(door, "call pid"), "tool_result")[0].content
    restarted = await door.restart_mcp("acp:lab")
    assert restarted.state == "running"
    after = of_type(await send(door, "call pid"), "tool_result")[0].content
    assert after != before and gone(int(before))


@pytest.mark.parametrize(("transport", "served", "path"), [
    ("http", "streamable-http", "/mcp"), ("sse", "sse", "/sse")])
async def test_http_and_sse_servers_with_the_clients_headers(door, http_server, transport,
                                                            served, path):
    """A server over HTTP given with the client's header (a token the server demands): its
    tool answers, and the header's value shows in no row."""
    url = http_server(served, token="s3cret") + path
    rows = await door.attach_mcp_servers([McpServerSpec(
        name="remote", transport=transport, url=url,
        headers={"Authorization": "Bearer s3cret"})])
    assert rows[0].state == "running", rows[0].error
    events = await send(door, 'call add {"a": 2, "b": 40}')
    assert of_type(events, "tool_result")[0].content == "42"
    assert "s3cret" not in repr(door.mcp_rows())


async def test_deleting_the_session_stops_its_servers(door):
    """A deleted session's given servers stop at once, not when the door closes."""
    await door.attach_mcp_servers([LAB])
    pid = int(of_type(await send(door, "call pid"), "tool_result")[0].content)
    doomed = door.status().session_id
    await door.new_session()
    await door.delete_session(doomed)
    assert gone(pid)
