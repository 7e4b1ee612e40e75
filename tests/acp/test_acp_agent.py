"""`birdie-tui acp` driven by the ACP SDK's own client, over a real process's stdio."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from acp import RequestError

from tests.acp.harness import Recorder, agent, prompt

pytestmark = pytest.mark.integration


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return tmp_path / "home"


async def test_initialize_then_a_prompt_streams_the_reply(home: Path, tmp_path: Path):
    """The handshake names Birdie and what it supports; a prompt's reply arrives as message
    chunks in order, and the turn ends with `end_turn` and the tokens it used."""
    client = Recorder()
    async with agent(home, client) as (conn, _):
        init = conn.init
        assert init.protocol_version == 1
        assert init.agent_info.name == "birdie-tui"
        assert init.agent_capabilities.load_session is True
        assert init.agent_capabilities.prompt_capabilities.embedded_context is True
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        assert session.modes.current_mode_id == "ask"
        assert {m.id for m in session.modes.available_modes} == {"ask", "auto", "read-only"}
        done = await conn.prompt(session_id=session.session_id, prompt=prompt("hello there"))
        assert done.stop_reason == "end_turn"
        assert done.usage.input_tokens > 0 and done.usage.output_tokens > 0
        reply = client.text(session.session_id)
        assert "hello there" in reply or "11 characters" in reply
        assert len(client.of_kind("agent_message_chunk")) > 3  # streamed, not one block
        commands = client.of_kind("available_commands_update")
        assert {c.name for c in commands[0].available_commands} >= {"skill", "mode", "model"}


async def test_a_gated_write_asks_and_a_rejection_is_not_run(home: Path, tmp_path: Path):
    """A file write asks with the dialog's choices and a diff; rejected, the file is not
    written and the call fails; allowed once, it is written and the update carries the diff."""
    work = tmp_path / "work"
    client = Recorder(answer="reject_once")
    call = 'call write_file {"path": "notes.md", "content": "# hi\\n"}'
    async with agent(home, client) as (conn, _):
        sid = (await conn.new_session(cwd=str(work))).session_id
        done = await conn.prompt(session_id=sid, prompt=prompt(call))
        assert done.stop_reason == "end_turn"
        tool_call, options = client.asked[0]
        assert {o.kind for o in options} == {"allow_once", "allow_always", "reject_once",
                                             "reject_always"}
        assert any(c.type == "diff" and c.path == str(work / "notes.md")
                   for c in tool_call.content)
        assert not (work / "notes.md").exists()
        ends = [u for u in client.of_kind("tool_call_update") if u.status in ("completed", "failed")]
        assert ends[-1].status == "failed" and "denied" in ends[-1].raw_output

        client.answer = "allow_once"
        done = await conn.prompt(session_id=sid, prompt=prompt(call))
        assert (work / "notes.md").read_text() == "# hi\n"
        ends = [u for u in client.of_kind("tool_call_update") if u.status == "completed"]
        diff = [c for c in ends[-1].content if c.type == "diff"]
        assert diff and diff[0].new_text == "# hi\n" and diff[0].old_text is None
        start = client.of_kind("tool_call")[-1]
        assert start.kind == "edit" and start.locations[0].path == str(work / "notes.md")


async def test_modes_decide_before_asking(home: Path, tmp_path: Path):
    """read-only refuses without asking, auto runs without asking; an unknown mode is the
    protocol's invalid-params error; the client is told the current mode."""
    work = tmp_path / "work"
    client = Recorder(answer="allow_once")
    call = 'call write_file {"path": "m.txt", "content": "x"}'
    async with agent(home, client) as (conn, _):
        sid = (await conn.new_session(cwd=str(work))).session_id
        await conn.set_session_mode(session_id=sid, mode_id="read-only")
        await conn.prompt(session_id=sid, prompt=prompt(call))
        assert client.asked == [] and not (work / "m.txt").exists()
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        await conn.prompt(session_id=sid, prompt=prompt(call))
        assert client.asked == [] and (work / "m.txt").read_text() == "x"
        assert [u.current_mode_id for u in client.of_kind("current_mode_update")] == \
            ["read-only", "auto"]
        with pytest.raises(RequestError) as bad:
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
        assert bad.value.code == -32602


async def test_cancel_mid_stream_and_mid_tool_keeps_a_valid_history(home: Path, tmp_path: Path):
    """session/cancel stops a streaming reply and a running tool (its process killed); the
    turn ends `cancelled`, and the next prompt in the session runs normally."""
    work = tmp_path / "work"
    client = Recorder()
    async with agent(home, client, BIRDIE_OFFLINE_TPS="15") as (conn, _):
        sid = (await conn.new_session(cwd=str(work))).session_id
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt("tell me a story")))
        await client.wait_for(lambda: len(client.of_kind("agent_message_chunk", sid)) >= 2)
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"

        await conn.set_session_mode(session_id=sid, mode_id="auto")
        slow = 'call run_bash {"command": "sleep 3 && touch late.txt"}'
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt(slow)))
        await client.wait_for(lambda: client.of_kind("tool_call", sid))
        await asyncio.sleep(0.5)
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        await asyncio.sleep(3.5)
        assert not (work / "late.txt").exists()  # the tool's process died with the turn

        done = await conn.prompt(session_id=sid, prompt=prompt("still there?"))
        assert done.stop_reason == "end_turn"


async def test_load_replays_a_session_made_by_print_and_lists_it(home: Path, tmp_path: Path):
    """A session written by `birdie-tui --print` (the TUI's engine and store) is listed, and
    `session/load` replays it as user and agent chunks and tool calls, then goes on."""
    import subprocess
    import sys

    from tests.acp.harness import agent_env

    work = tmp_path / "work"
    run = subprocess.run(
        [sys.executable, "-m", "birdie_tui.cli", "--auto-approve", "--output-format",
         "stream-json", "--print", 'call write_file {"path": "p.txt", "content": "1"}'],
        env=agent_env(home), cwd=work, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    sid = next(json.loads(line)["id"] for line in run.stdout.splitlines()
               if json.loads(line)["type"] == "session")
    client = Recorder()
    async with agent(home, client) as (conn, _):
        listed = await conn.list_sessions(cwd=str(work))
        assert sid in [s.session_id for s in listed.sessions]
        await conn.load_session(cwd=str(work), session_id=sid)
        assert 'call write_file' in client.text(sid, "user_message_chunk")
        assert client.of_kind("tool_call", sid)[0].title == "write_file(p.txt)"
        assert client.of_kind("tool_call_update", sid)[0].status == "completed"
        assert client.text(sid)  # the reply
        done = await conn.prompt(session_id=sid, prompt=prompt("and now?"))
        assert done.stop_reason == "end_turn"
        with pytest.raises(RequestError) as missing:
            await conn.load_session(cwd=str(work), session_id="1999-01-01_9")
        assert missing.value.code == -32602


async def test_unknown_sessions_and_a_second_prompt_are_refused(home: Path, tmp_path: Path):
    """A prompt for a session nobody opened, and a second prompt while one runs, get the
    protocol's errors; the running turn is not disturbed."""
    client = Recorder()
    async with agent(home, client, BIRDIE_OFFLINE_TPS="30") as (conn, _):
        with pytest.raises(RequestError) as unknown:
            await conn.prompt(session_id="nope", prompt=prompt("hi"))
        assert unknown.value.code == -32602
        sid = (await conn.new_session(cwd=str(tmp_path / "work"))).session_id
        first = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt("one")))
        await client.wait_for(lambda: client.of_kind("agent_message_chunk", sid))
        with pytest.raises(RequestError) as busy:
            await conn.prompt(session_id=sid, prompt=prompt("two"))
        assert busy.value.code == -32600
        assert (await asyncio.wait_for(first, 60)).stop_reason == "end_turn"


async def test_slash_commands_turn_skills_off_for_the_session(home: Path, tmp_path: Path):
    """`/skill off NAME` answers as a message and the session's next turn runs without it;
    `/skills` lists the skills; `/context` says what the last prompt carried and why."""
    client = Recorder()
    async with agent(home, client) as (conn, _):
        sid = (await conn.new_session(cwd=str(tmp_path / "work"))).session_id
        await conn.prompt(session_id=sid, prompt=prompt("/skill off filesystem"))
        assert "filesystem** is off" in client.text(sid)
        await conn.prompt(session_id=sid, prompt=prompt("/skills"))
        assert "off **filesystem**" in client.text(sid)
        await conn.prompt(session_id=sid, prompt=prompt("hi"))
        assert "`write_file`" not in client.text(sid).split("off **filesystem**")[-1]
        await conn.prompt(session_id=sid, prompt=prompt("/context"))
        said = client.text(sid).rsplit("The last model call", 1)[-1]
        assert "system prompt" in said and "**planning**" in said  # why each skill is there


async def test_an_unanswered_permission_holds_only_its_call_until_cancel(home: Path,
                                                                         tmp_path: Path):
    """A client that never answers a permission request holds that call only: another
    session's prompt runs meanwhile, and session/cancel ends the waiting turn (not run)."""
    work = tmp_path / "work"
    client = Recorder(answer="wait")
    async with agent(home, client) as (conn, _):
        held = (await conn.new_session(cwd=str(work))).session_id
        other = (await conn.new_session(cwd=str(work))).session_id
        turn = asyncio.create_task(conn.prompt(
            session_id=held, prompt=prompt('call write_file {"path": "w.txt", "content": "x"}')))
        await client.wait_for(lambda: client.asked)
        done = await asyncio.wait_for(conn.prompt(session_id=other, prompt=prompt("hi")), 60)
        assert done.stop_reason == "end_turn" and client.text(other)
        await conn.cancel(session_id=held)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        assert not (work / "w.txt").exists()
        done = await conn.prompt(session_id=held, prompt=prompt("and now?"))
        assert done.stop_reason == "end_turn"


async def test_mcp_servers_given_in_session_new_serve_that_session(home: Path, tmp_path: Path):
    """An MCP stdio server passed in session/new (the bundled demo, a real process) gives
    that session its tools; a session created without it cannot call them; a bad entry is
    refused with invalid params before anything is created."""
    import sys

    from acp.schema import McpServerStdio

    from birdie_tui.skills import bundled_skills_dir

    demo = McpServerStdio(name="demo", command=sys.executable,
                          args=[str(bundled_skills_dir() / "mcp_demo" / "server.py")], env=[])
    client = Recorder(answer="allow_once")
    work = str(tmp_path / "work")
    async with agent(home, client) as (conn, _):
        sid = (await conn.new_session(cwd=work, mcp_servers=[demo])).session_id
        await conn.prompt(session_id=sid, prompt=prompt('call reverse_string {"text": "birdie"}'))
        ends = [u for u in client.of_kind("tool_call_update", sid) if u.status == "completed"]
        assert ends and "eidrib" in ends[-1].raw_output
        bare = (await conn.new_session(cwd=work)).session_id
        await conn.prompt(session_id=bare, prompt=prompt('call reverse_string {"text": "x"}'))
        assert not [u for u in client.of_kind("tool_call_update", bare)
                    if u.status == "completed"]
        with pytest.raises(RequestError) as bad:
            await conn.new_session(cwd=work, mcp_servers=[
                McpServerStdio(name="", command="", args=[], env=[])])
        assert bad.value.code == -32602


async def test_config_options_switch_skills_and_a_todo_list_is_the_plan(home: Path,
                                                                        tmp_path: Path):
    """session/new offers the model and a switch per skill; turning a skill's switch off
    takes its tools from the session; the planning skill's todo list arrives as the plan."""
    client = Recorder()
    async with agent(home, client) as (conn, _):
        new = await conn.new_session(cwd=str(tmp_path / "work"))
        sid = new.session_id
        ids = {option.root.id if hasattr(option, "root") else option.id
               for option in new.config_options}
        assert "model" in ids and "skill:filesystem" in ids
        answer = await conn.set_config_option(config_id="skill:filesystem", session_id=sid,
                                              value=False)
        switch = [o for o in answer.config_options
                  if (o.root if hasattr(o, "root") else o).id == "skill:filesystem"]
        assert (switch[0].root if hasattr(switch[0], "root") else switch[0]).current_value is False
        with pytest.raises(RequestError) as bad:
            await conn.set_config_option(config_id="volume", session_id=sid, value="11")
        assert bad.value.code == -32602

        await conn.prompt(session_id=sid, prompt=prompt('call todo_add {"text": "write docs"}'))
        await conn.prompt(session_id=sid, prompt=prompt('call todo_add {"text": "ship it"}'))
        await conn.prompt(session_id=sid, prompt=prompt('call todo_done {"id": 1}'))
        await conn.prompt(session_id=sid, prompt=prompt("call todo_list {}"))
        plan = client.of_kind("plan", sid)[-1]
        assert [(e.content, e.status) for e in plan.entries] == [("write docs", "completed"),
                                                                 ("ship it", "pending")]


class EditorClient(Recorder):
    """A client with an editor's file system: open buffers it serves and takes writes into."""

    def __init__(self) -> None:
        super().__init__(answer="allow_once")
        self.buffers: dict[str, str] = {}

    async def read_text_file(self, session_id: str, path: str, line=None, limit=None, **kw):
        from acp.schema import ReadTextFileResponse

        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **kw):
        self.buffers[path] = content


async def test_file_tools_use_the_editors_buffers(home: Path, tmp_path: Path):
    """With a client that offers fs: a read gets the unsaved buffer, not the disk, and a
    write lands in the editor, leaving the disk alone."""
    from acp.schema import ClientCapabilities, FileSystemCapabilities

    work = tmp_path / "work"
    (work / "a.md").write_text("on disk\n")
    client = EditorClient()
    client.buffers[str(work / "a.md")] = "unsaved edit\n"
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True,
                                                        write_text_file=True))
    async with agent(home, client, caps=caps) as (conn, _):
        sid = (await conn.new_session(cwd=str(work))).session_id
        await conn.prompt(session_id=sid, prompt=prompt('call read_file {"path": "a.md"}'))
        ends = [u for u in client.of_kind("tool_call_update") if u.status == "completed"]
        assert "unsaved edit" in ends[-1].raw_output
        await conn.prompt(session_id=sid, prompt=prompt(
            'call write_file {"path": "b.md", "content": "new"}'))
        assert client.buffers[str(work / "b.md")] == "new"
        assert not (work / "b.md").exists()


async def test_enable_and_disable_apply_to_every_new_session(home: Path, tmp_path: Path):
    """`birdie-tui acp --disable NAME` turns the skill off in each new session; an unknown
    name is said in the session, not a failure."""
    client = Recorder()
    async with agent(home, client, "--disable", "filesystem", "--enable", "nosuch") as (conn, _):
        for _ in range(2):
            sid = (await conn.new_session(cwd=str(tmp_path / "work"))).session_id
            await conn.prompt(session_id=sid, prompt=prompt("/skills"))
            assert "off **filesystem**" in client.text(sid)
        await client.wait_for(lambda: "nosuch" in client.text())
