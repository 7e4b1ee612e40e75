"""An ACP agent as the model, end to end: the engine drives a real agent process (the SDK's own
agent side, tests/providers/acp_script_agent.py) through the provider, and the agent calls
Birdie's tools over the real MCP bridge process."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.acp_relay import NEEDS_APPROVAL
from birdie_tui.providers.config import ProviderConfig
from tests.agent.conftest import write_skills

pytestmark = pytest.mark.integration

AGENT = Path(__file__).with_name("acp_script_agent.py")


def agent_config(**extra: Any) -> ProviderConfig:
    return ProviderConfig(vendor="acp", model="script-agent", timeout=20.0,
                          command=(sys.executable, str(AGENT)), **extra)


@pytest.fixture
async def make_engine(tmp_path, monkeypatch):
    monkeypatch.setenv("BIRDIE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    skills = write_skills(tmp_path / "skills")
    engines: list[Engine] = []

    async def factory(config: ProviderConfig | None = None, mode: str = "ask") -> Engine:
        engine = Engine(EngineOptions(skills_dirs=[skills], provider=config or agent_config(),
                                      tool_timeout=10))
        await engine.start()
        await engine.open_session()
        engine.set_approval_mode(mode)
        engines.append(engine)
        return engine

    yield factory
    for engine in engines:
        await engine.aclose()


async def turn(engine: Engine, text: str) -> list[Any]:
    return [event async for event in engine.run_turn(text)]


def of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


async def test_streamed_chunks_arrive_in_order_with_the_agents_usage(make_engine):
    """Every agent_message_chunk streams as the reply, in order, and the prompt's usage is the call's."""
    engine = await make_engine()
    events = await turn(engine, "chunks 40")
    assert "".join(e.text for e in of(events, "token")) == "".join(f"c{i} " for i in range(40))
    usage = of(events, "usage")[-1]
    assert (usage.input_tokens, usage.output_tokens) == (11, 7)
    assert of(events, "done")[0].text.startswith("c0 c1 ")


async def test_the_agent_calls_a_birdie_tool_over_the_bridge_and_gets_its_result(make_engine):
    """A tool the agent calls over the MCP bridge runs through Birdie and shows as the turn's tool events."""
    engine = await make_engine()
    events = await turn(engine, 'tool echo_text {"text": "from birdie"}')
    assert of(events, "done")[0].text == "result=from birdie error=False"
    started, finished = of(events, "tool_call"), of(events, "tool_result")
    assert [(e.name, e.args) for e in started] == [("echo_text", {"text": "from birdie"})]
    assert finished[0].content == "from birdie" and not finished[0].error


async def test_a_tool_that_fails_is_an_error_result_the_agent_reads(make_engine):
    """A failing tool is an error result for the agent, with the tool's own message."""
    engine = await make_engine()
    events = await turn(engine, "tool fail_hard {}")
    assert "broken" in of(events, "done")[0].text and "error=True" in of(events, "done")[0].text


async def test_a_gated_tool_is_refused_in_ask_mode_and_runs_in_auto(make_engine, tmp_path):
    """A gated tool never runs unapproved: refused with a clear reason in ask mode, run in auto."""
    target = tmp_path / "made-by-agent"
    call = f'tool touch_file {json.dumps({"path": str(target)})}'
    engine = await make_engine(mode="ask")
    events = await turn(engine, call)
    assert NEEDS_APPROVAL in of(events, "done")[0].text and not target.exists()
    assert [(e.name, e.decision) for e in of(events, "approval")] == [("touch_file", "denied")]

    engine.set_approval_mode("auto")
    events = await turn(engine, call)
    assert of(events, "done")[0].text.endswith("error=False") and target.exists()
    assert [e.decision for e in of(events, "approval")] == ["approved"]


async def test_read_only_mode_refuses_a_gated_tool_with_its_reason(make_engine, tmp_path):
    """Read-only mode refuses a gated tool with the policy's reason."""
    engine = await make_engine(mode="read-only")
    events = await turn(engine, f'tool touch_file {json.dumps({"path": str(tmp_path / "x")})}')
    text = of(events, "done")[0].text
    assert text.startswith("result=Not run") and "error=True" in text
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("mode, chosen", [("auto", "yes"), ("ask", "no"), ("read-only", "no")])
async def test_the_agents_own_permission_requests_follow_the_approval_mode(make_engine, mode,
                                                                          chosen):
    """A real agent's permission request is answered by the session's approval mode."""
    engine = await make_engine(mode=mode)
    events = await turn(engine, "ask")
    assert of(events, "done")[0].text == f"chose={chosen}"


async def test_the_agent_reads_files_in_the_working_directory_only(make_engine, tmp_path):
    """fs/read_text_file serves files inside the working folder and refuses the rest."""
    (tmp_path / "notes.txt").write_text("inside")
    engine = await make_engine(agent_config(cwd=str(tmp_path)))
    events = await turn(engine, f"read {tmp_path / 'notes.txt'}")
    assert of(events, "done")[0].text == "file=inside"
    events = await turn(engine, "read /etc/hostname")
    assert "outside the working directory" in of(events, "done")[0].text


async def test_an_agent_that_crashes_mid_turn_is_one_line_and_the_next_turn_works(make_engine):
    """An agent dying mid-turn is one error line with its last stderr; the next turn starts a new one."""
    engine = await make_engine()
    events = await turn(engine, "crash")
    [error] = of(events, "error")
    assert "exited" in error.message and "boom" in error.message and "\n" not in error.message
    assert of(events, "token")[0].text == "partial "
    events = await turn(engine, "chunks 2")  # a new agent process; the history still valid
    assert of(events, "done")[0].text == "c0 c1 "
    assert [m.type for m in await engine.messages()][-2:] == ["human", "ai"]


async def test_cancel_mid_stream_cancels_the_agent_session_and_the_next_turn_works(make_engine):
    """Cancelling a turn while the agent streams ends the call; the next turn is answered."""
    engine = await make_engine()
    seen = asyncio.Event()

    async def consume() -> None:
        async for event in engine.run_turn("hang"):
            if event.type == "token":
                seen.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(seen.wait(), 20)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    events = await turn(engine, "chunks 1")
    assert of(events, "done")[0].text == "c0 "


async def test_the_bridge_and_prompt_carry_what_0_15_1_sent(make_engine, tmp_path, monkeypatch):
    """session/new offers the stdio MCP server named birdie; the prompt ends with the user's line."""
    log = tmp_path / "agent.log"
    monkeypatch.setenv("ACP_AGENT_LOG", str(log))
    engine = await make_engine()
    await turn(engine, "hello there")
    [record] = [json.loads(line) for line in log.read_text().splitlines()]
    assert record["prompt"].rstrip().endswith("Human: hello there")
    [server] = record["servers"]
    assert server["name"] == "birdie" and server["command"] == sys.executable
    assert server["args"] == ["-m", "birdie_tui.providers.acp_bridge"]


async def test_closing_the_model_ends_the_agent_process(make_engine):
    """Closing the engine ends the agent's whole process group."""
    engine = await make_engine()
    await turn(engine, "chunks 1")
    link = engine.host.agent.model._link
    pid = link.proc.pid
    await engine.aclose()
    assert link.proc.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)  # the whole group: the guardian and the agent


def test_a_missing_agent_is_a_one_line_config_error(tmp_path):
    """`--print` with a missing agent fails with one line naming it, no hang."""
    from birdie_tui.cli import main  # noqa: F401 - the same message the command line prints
    import subprocess

    env = {**os.environ, "LLM_VENDOR": "acp", "LLM_MODEL": "no-such-agent-anywhere",
           "BIRDIE_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--print", "hi"], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert any("'no-such-agent-anywhere' was not found" in line for line in lines), proc.stderr
