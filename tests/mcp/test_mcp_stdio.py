"""stdio MCP servers through the real Engine, the offline model and real subprocesses."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills.bundled import bundled_skills_dir

from .conftest import bash_skill, lab_skill, mcp_skill, of_type, status_of, turn

pytestmark = pytest.mark.integration


async def test_bundled_demo_works_from_any_directory(tmp_path, monkeypatch):
    """The bundled MCP demo starts lazily from any cwd, keeps its session, ends with the engine."""
    monkeypatch.chdir(tmp_path)  # server.py must be found next to SKILL.MD, not here
    eng = Engine(EngineOptions(skills_dirs=[bundled_skills_dir()],
                               provider=ProviderConfig(vendor="offline"), mcp_start_timeout=20))
    await eng.start()
    try:
        await eng.open_session(enable=["mcp_demo"])
        assert status_of(eng, "mcp_demo").state == "not started"  # lazy: nothing yet
        events = await turn(eng, 'call reverse_string {"text": "birdie"}')
        result = of_type(events, "tool_result")[0]
        assert (result.name, result.content, result.error) == ("reverse_string", "eidrib", False)
        assert events[-1].type == "done" and "eidrib" in events[-1].text
        status = status_of(eng, "mcp_demo")
        assert status.state == "running" and status.tools == ("echo", "reverse_string")
        events = await turn(eng, 'call echo {"message": "kept session"}')
        assert of_type(events, "tool_result")[0].content == "kept session"
        assert history_problems(await eng.messages()) == []
    finally:
        await eng.aclose()
    assert status_of(eng, "mcp_demo").state == "not started"  # closed with the engine


async def test_server_starts_only_when_enabled_and_needed(skills_root, engine_for):
    """A server starts only when its skill is enabled and one of its tools is needed."""
    lab_skill(skills_root, "lab", enabled=False)
    eng = await engine_for()
    await turn(eng, "hello")
    assert status_of(eng, "lab").state == "not started"
    assert not (eng.paths.logs_dir / "mcp-lab.log").exists()
    eng.set_skill_enabled("lab", True)
    assert status_of(eng, "lab").state == "not started"  # enabling alone starts nothing
    events = await turn(eng, 'call shout {"text": "hi"}')
    assert of_type(events, "tool_result")[0].content == "HI"
    status = status_of(eng, "lab")
    assert status.state == "running" and status.enabled
    assert set(status.tools) == {"shout", "pid", "refuse", "crash", "lab_dotted"}


async def test_one_session_is_kept_across_calls_and_turns(skills_root, engine_for):
    """One server process serves every call and turn, without restarts."""
    lab_skill(skills_root)
    eng = await engine_for()
    first = of_type(await turn(eng, "call pid"), "tool_result")[0].content
    second = of_type(await turn(eng, "call pid"), "tool_result")[0].content
    assert first == second and first.isdigit()
    assert status_of(eng, "lab").restarts == 0


async def test_server_tool_error_is_an_error_result_and_the_turn_goes_on(skills_root,
                                                                         engine_for):
    """A server tool error is an error result; renamed tool names still reach the server."""
    lab_skill(skills_root)
    eng = await engine_for()
    events = await turn(eng, 'call refuse {"reason": "no way"}')
    result = of_type(events, "tool_result")[0]
    assert result.error and "refused: no way" in result.content
    assert events[-1].type == "done"
    # a name providers reject is made safe, and still reaches the right MCP tool
    events = await turn(eng, "call lab_dotted")
    assert of_type(events, "tool_result")[0].content == "dotted ok"


async def test_disabled_skill_tools_are_never_bound_nor_callable(skills_root, engine_for):
    """A disabled MCP skill's tools are neither bound nor callable, and its server never starts."""
    lab_skill(skills_root, enabled=False)
    bash_skill(skills_root)
    eng = await engine_for()
    names = [t.name for t in await eng.toolbox.tools()]
    assert names == ["say"]
    events = await turn(eng, 'call shout {"text": "hi"}')  # the offline model sees no shout
    assert of_type(events, "tool_call") == []

    eng.model = CallsShout()  # a model that calls it by name anyway
    events = await turn(eng, "shout please")
    result = of_type(events, "tool_result")[0]
    assert result.error and "not available" in result.content
    assert status_of(eng, "lab").state == "not started"  # nor was the server started
    assert history_problems(await eng.messages()) == []


class CallsShout(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "calls-shout"

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[t.name for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, tools=None, **kwargs):
        if isinstance(messages[-1], ToolMessage):
            msg = AIMessage(content="done")
        else:
            msg = AIMessage(content="", tool_calls=[
                {"name": "shout", "args": {"text": "x"}, "id": "call1"}])
        return ChatResult(generations=[ChatGeneration(message=msg)])


async def test_missing_command_fails_that_skill_only(skills_root, engine_for):
    """A server whose command is missing fails that skill only; other tools keep working."""
    mcp_skill(skills_root, "ghost", {"command": "birdie-no-such-server-xyz", "args": ["--x"]})
    lab_skill(skills_root)
    bash_skill(skills_root)
    eng = await engine_for()
    events = await turn(eng, 'call say {"text": "still here"}')
    assert of_type(events, "tool_result")[0].content == "still here"
    assert events[-1].type == "done"
    ghost = status_of(eng, "ghost")
    assert ghost.state == "failed" and "command not found" in ghost.error
    assert "birdie-no-such-server-xyz" in ghost.error
    assert status_of(eng, "lab").state == "running"
    assert "shout" in [t.name for t in await eng.toolbox.tools()]


async def test_server_dying_at_start_reports_its_last_words(skills_root, engine_for):
    """A server that exits at start is marked failed with its last stderr words."""
    folder = mcp_skill(skills_root, "broken", {"command": "python", "args": ["boom.py"]})
    (folder / "boom.py").write_text("import sys\nsys.exit('boom: missing API key')\n")
    eng = await engine_for()
    events = await turn(eng, "hello")
    assert events[-1].type == "done"
    status = status_of(eng, "broken")
    assert status.state == "failed" and "boom: missing API key" in status.error


async def test_start_timeout_marks_the_skill_failed(skills_root, engine_for):
    """A server slower than the start timeout is marked failed and not retried on every call."""
    lab_skill(skills_root, "lab", "--slow-start", "30")
    bash_skill(skills_root)
    eng = await engine_for(mcp_start_timeout=1.0)
    events = await turn(eng, 'call say {"text": "ok"}')
    assert events[-1].type == "done" and of_type(events, "tool_result")[0].content == "ok"
    status = status_of(eng, "lab")
    assert status.state == "failed" and "start timeout" in status.error
    # a failed server is not retried on every model call
    before = (eng.paths.logs_dir / "mcp-lab.log").read_text().count("starting stdio")
    await turn(eng, "hello again")
    assert (eng.paths.logs_dir / "mcp-lab.log").read_text().count("starting stdio") == before


async def test_killed_server_is_restarted_on_next_use(skills_root, engine_for):
    """A killed server is seen as exited and restarted on next use, counting one restart."""
    lab_skill(skills_root)
    eng = await engine_for()
    old_pid = int(of_type(await turn(eng, "call pid"), "tool_result")[0].content)
    os.kill(old_pid, signal.SIGKILL)
    for _ in range(200):  # the connection notices the closed stream on its own
        if status_of(eng, "lab").state == "exited":
            break
        await asyncio.sleep(0.05)
    assert status_of(eng, "lab").state == "exited"
    result = of_type(await turn(eng, "call pid"), "tool_result")[0]
    assert not result.error and int(result.content) != old_pid
    status = status_of(eng, "lab")
    assert status.state == "running" and status.restarts == 1


async def test_server_exiting_mid_call_is_an_error_then_restarts(skills_root, engine_for):
    """A server exiting mid-call is an error result, the history stays valid, and it restarts."""
    lab_skill(skills_root)
    eng = await engine_for()
    events = await turn(eng, "call crash")
    result = of_type(events, "tool_result")[0]
    assert result.error and "exited during the call" in result.content
    assert events[-1].type == "done"
    assert history_problems(await eng.messages()) == []
    events = await turn(eng, 'call shout {"text": "back"}')
    assert of_type(events, "tool_result")[0].content == "BACK"


async def test_changed_config_replaces_the_session(skills_root, engine_for):
    """A changed server config closes the old server; even old tool objects reach the new one."""
    lab_skill(skills_root, "lab", "--noise", "first config")
    eng = await engine_for()
    old_pid = int(of_type(await turn(eng, "call pid"), "tool_result")[0].content)
    stale_tool = next(t for t in await eng.toolbox.tools() if t.name == "pid")
    lab_skill(skills_root, "lab", "--noise", "second config")  # the skill file is edited
    eng.reload_skills()
    assert status_of(eng, "lab").state == "not started"
    new_pid = int(of_type(await turn(eng, "call pid"), "tool_result")[0].content)
    assert new_pid != old_pid
    assert not _alive(old_pid)  # the old server was closed, not leaked
    # a tool object from before the edit reaches the new server, never the old config
    assert int(await stale_tool.ainvoke({})) == new_pid
    assert status_of(eng, "lab").restarts == 0
    log = (eng.paths.logs_dir / "mcp-lab.log").read_text()
    assert "first config" in log and "second config" in log


async def test_aclose_stops_the_servers(skills_root, isolated_home):
    """Closing the engine stops its MCP server processes."""
    from .conftest import make_engine

    lab_skill(skills_root)
    eng = make_engine(skills_root)
    await eng.start()
    await eng.open_session()
    pid = int(of_type(await turn(eng, "call pid"), "tool_result")[0].content)
    await eng.aclose()
    assert not _alive(pid)


async def test_approval_rules_of_an_mcp_skill_apply(skills_root, engine_for):
    """An MCP skill's require_approval list asks before the listed tools only."""
    lab_skill(skills_root, extra="""
        ## Permissions
        require_approval: [shout]
        """)
    eng = await engine_for()
    asked = []

    async def deny(request):
        asked.append((request.name, request.skill))
        return ApprovalAnswer("deny")

    events = await turn(eng, 'call shout {"text": "x"}', approver=deny)
    assert asked == [("shout", "lab")]
    assert of_type(events, "tool_result")[0].error
    events = await turn(eng, "call pid", approver=deny)  # not listed: no question
    assert not of_type(events, "tool_result")[0].error and len(asked) == 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped) counts as gone
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False
