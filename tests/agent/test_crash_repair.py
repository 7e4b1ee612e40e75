"""A real crash: a `--print` process is killed with SIGKILL while its tool runs, between the
agent node's checkpoint and the tools node's. What is on disk is already valid: the call was
checkpointed with a stand-in answer ("interrupted") that the tools node would have replaced."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig

from ..conftest import clean_env
from .conftest import collect

pytestmark = pytest.mark.integration


async def test_sigkill_during_tool_then_resume(skills_dir, isolated_home):
    """A run killed mid-tool leaves a valid history (the call answered "interrupted") without
    any repair; the session goes on."""
    cmd = [sys.executable, "-m", "birdie_tui.cli", "--print", "call slow",
           "--output-format", "stream-json", "--skills-dir", str(skills_dir)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=clean_env(isolated_home), text=True, start_new_session=True)
    session_id = None
    try:
        for line in proc.stdout:
            event = json.loads(line)
            if event["type"] == "session":
                session_id = event["id"]
            if event["type"] == "tool_call":
                break
        else:
            raise AssertionError("no tool_call event: " + proc.stderr.read())
        marker = isolated_home / "slow.started"
        deadline = time.monotonic() + 20
        while not marker.exists():  # the tool is running: the agent step is checkpointed
            assert time.monotonic() < deadline, "the slow tool never started"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the process and its `sleep 30`
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL

    engine = Engine(EngineOptions(skills_dirs=[skills_dir],
                                  provider=ProviderConfig(vendor="offline")))
    await engine.start()
    try:
        # What the crash left, read before any repair could run: already valid.
        raw = await engine.host.graph.aget_state(engine.history.config(session_id))
        raw_messages = raw.values["messages"]
        assert isinstance(raw_messages[-2], AIMessage) and raw_messages[-2].tool_calls
        assert isinstance(raw_messages[-1], ToolMessage) and raw_messages[-1].status == "error"
        assert "interrupted" in raw_messages[-1].content
        assert history_problems(raw_messages) == []

        await engine.open_session(session_id)
        healed = await engine.messages()
        assert history_problems(healed) == []
        # Opened, the turn the kill cut short is closed as a SIGTERM closes it.
        assert [type(m) for m in healed] == [HumanMessage, AIMessage, ToolMessage, AIMessage]
        assert healed[3].content == "*[interrupted]*"
        assert healed[2].status == "error" and healed[2].tool_call_id == healed[1].tool_calls[0]["id"]

        events = await collect(engine, "are you back?")
        assert events[-1].type == "done"
        final = await engine.messages()
        assert history_problems(final) == []
        assert [type(m) for m in final][-2:] == [HumanMessage, AIMessage]
    finally:
        await engine.aclose()
