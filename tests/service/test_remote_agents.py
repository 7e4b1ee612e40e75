"""Sub-agents over `--server`: `RemoteBirdie` and `birdie-tui --server URL --print` against a
real `langgraph dev` whose home has agent files (the offline model). A served turn calling an
agent streams agent_start, the child's events and agent_end as a local turn does; the child's
usage is in the thread's figures, per agent; a child's gated call is refused without an
approver and runs in auto mode; the door lists, toggles (in the thread's metadata) and counts
agents, and reads a child's model calls."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from birdie_tui.agent.history import INTERRUPTED_TOOL_TEXT
from birdie_tui.agent.subagents import HEADLESS_DENIAL
from birdie_tui.events import AgentFinished, AgentStarted, ChildEvent, ToolFinished, UsageReported
from birdie_tui.service import BirdieError
from tests.service.conftest import remote_doors
from birdie_tui.skills.bundled import bundled_skills_dir
from tests.conftest import clean_env
from tests.server.test_served_agents import WRITER_PROMPT, write_agent

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ECHO = 'call Echoer {"path": "hi"}'
SLEEPY = """\
---
name: sleepy
description: A tool that takes its time.
---

## Tools

### slow
description: Sleeps for a long time (leaves a marker once it runs).
entrypoint: bash:touch "$BIRDIE_HOME/slow.started"; sleep 30
schema:
  type: object
  properties: {}
"""


@pytest.fixture(scope="module")
def agents_server(tmp_path_factory):
    """One `langgraph dev` per module; its home has Echoer, Writer and a broken agent file."""
    from tests.lg_server import start_server

    tmp = tmp_path_factory.mktemp("agents-server")
    home = tmp / "home"
    write_agent(home, "Echoer", "Echo this: {{ path }}")
    write_agent(home, "Writer", WRITER_PROMPT)
    write_agent(home, "Sleeper", "call slow {}", skills="sleepy")
    (home / "agents" / "broken").mkdir(parents=True)
    (home / "agents" / "broken" / "AGENT.MD").write_text("no frontmatter at all\n")
    sleepy = tmp / "skills" / "sleepy" / "SKILL.MD"
    sleepy.parent.mkdir(parents=True)
    sleepy.write_text(SLEEPY)
    started = start_server(home=home, workdir=tmp / "work",
                           skills_dirs=[bundled_skills_dir(), tmp / "skills"])
    yield started
    started.stop()


@pytest.fixture
async def remote(agents_server):
    async for open_door in remote_doors(agents_server.url):
        yield open_door


async def turn(events) -> list:
    return [event async for event in events]


async def test_a_served_sub_agent_call_streams_counts_and_lists_like_a_local_one(remote):
    """agent_start, the child's events (its id on each) and agent_end, then the answer; the
    child's tokens are in the thread's totals and per agent; the run is listed, and its model
    calls read back with their provenance."""
    door = await remote(enable=["echoer"])  # an agent's name in any case, as --enable takes it
    events = await turn(door.send(ECHO))
    start = next(e for e in events if isinstance(e, AgentStarted))
    end = next(e for e in events if isinstance(e, AgentFinished))
    inner = [e for e in events if isinstance(e, ChildEvent)]
    assert start.name == "Echoer" and start.child.startswith(f"{door.shown.id}/agent/Echoer-")
    assert end.status == "done" and inner and {e.child for e in inner} == {start.child}
    assert events.index(start) < events.index(inner[0]) < events.index(end)
    assert events[-1].type == "done" and "Echo this: hi" in events[-1].text
    [used] = [e.event for e in inner if isinstance(e.event, UsageReported)]
    own = sum(e.input_tokens for e in events if isinstance(e, UsageReported))
    ledger = door.ledger()
    assert ledger.session_in == own + used.input_tokens
    [spend] = ledger.agents
    assert (spend.name, spend.calls, spend.input) == ("Echoer", 1, used.input_tokens)
    [run] = door.agent_runs()
    assert (run.child, run.agent, run.status, run.calls) == (start.child, "Echoer", "done", 1)
    [call] = await door.child_contexts(start.child)
    assert call.turn == 1 and any(s.kind == "base" for s in call.segments)
    with pytest.raises(BirdieError, match="not a sub-agent run"):
        await door.child_contexts("another/agent/Echoer-0")
    other = await remote(session_id=door.shown.id)  # another client: counted from the thread
    assert [r.child for r in other.agent_runs()] == [start.child]
    assert other.ledger().agents == ledger.agents


async def test_the_door_lists_toggles_and_keeps_grants_in_thread_metadata(remote):
    """The server's agents and its broken file; a toggle by a unique prefix says `agents` and
    is kept in the thread's metadata, where another client finds it; an unknown name is one
    clear error."""
    door = await remote()
    assert [(r.name, r.enabled) for r in door.agent_rows()] == [  # the bundled one last
        ("Echoer", False), ("Sleeper", False), ("Writer", False), ("Summarizer", False)]
    [broken] = door.broken_agent_files()
    assert broken.path.endswith("broken/AGENT.MD") and "frontmatter" in broken.message
    await turn(door.send("hello"))  # the thread exists from its first turn
    door.heard.clear()
    assert door.set_agent("wri").enabled
    assert [e.type for e in door.heard] == ["agents"]
    assert door.shown.meta["enabled_agents"] == ["Writer"]
    other = await remote(session_id=door.shown.id)
    assert [(r.name, r.enabled) for r in other.agent_rows()] == [
        ("Echoer", False), ("Sleeper", False), ("Writer", True), ("Summarizer", False)]
    assert not other.set_agent("Writer", False).enabled
    assert other.shown.meta["disabled_agents"] == ["Writer"]
    with pytest.raises(BirdieError, match="unknown agent 'Nobody'"):
        door.set_agent("Nobody")
    with pytest.raises(BirdieError, match="unknown skill or agent 'Nobody'"):
        await remote(enable=["Nobody"], strict=True)


async def test_a_childs_gated_call_is_refused_without_an_approver_and_runs_in_auto_mode(
        remote, agents_server):
    """Even with an approver at the client, a child's call the thread's mode leaves open is
    refused on the server (it cannot wait for one); in auto mode it runs there."""
    async def allow(request):
        raise AssertionError(f"nothing is asked of the client: {request}")

    door = await remote(enable=["Writer"])
    events = await turn(door.send('call Writer {"path": "asked.txt"}', approver=allow))
    [refused] = [e.event for e in events if isinstance(e, ChildEvent)
                 and isinstance(e.event, ToolFinished)]
    assert refused.error and HEADLESS_DENIAL in refused.content
    assert not (agents_server.workdir / "asked.txt").exists()
    door.set_approval_mode("auto")
    events = await turn(door.send('call Writer {"path": "auto.txt"}'))
    assert (agents_server.workdir / "auto.txt").read_text() == "from the child"
    assert next(e for e in events if isinstance(e, AgentFinished)).status == "done"


def _print_lines(args: list[str], env: dict[str, str], cwd: Path) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "birdie_tui.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _without_ids(lines: list[dict]) -> list[dict]:
    """The lines with the session's and children's ids made one placeholder."""
    out = []
    for line in lines:
        line = dict(line)
        if line["type"] == "session":
            line["id"] = "S"
        if "child" in line:
            line["child"] = re.sub(r"^.*/agent/(\w+)-[0-9a-f]+$", r"S/agent/\1-X", line["child"])
        out.append(line)
    return out


def test_stream_json_over_the_server_prints_what_a_local_print_prints(agents_server,
                                                                       tmp_path):
    """`--server URL --print --output-format stream-json` with a sub-agent call: the same
    lines as the same home's local `--print`, the session's and children's ids aside."""
    env = clean_env(agents_server.home)
    env.update(PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
               BIRDIE_SKILLS_DIR=os.pathsep.join(  # the server's skills, here too
                   [str(bundled_skills_dir()), str(agents_server.home.parent / "skills")]))
    args = ["--enable", "Echoer", "--output-format", "stream-json", "--print", ECHO]
    there = _print_lines(["--server", agents_server.url, *args], env, agents_server.workdir)
    here = _print_lines(args, env, agents_server.workdir)
    kinds = [line["type"] for line in there]
    assert {"agent_start", "agent_end"} <= set(kinds) and kinds[-1] == "done"
    assert _without_ids(there) == _without_ids(here)


async def test_esc_during_a_served_child_cancels_it_and_leaves_every_history_valid(
        remote, agents_server):
    """Cancelling the turn while the child's tool runs cancels the run on the server: the
    agent call is answered as interrupted in the thread, the child's history answers its
    call too, and the next turn works."""
    door = await remote(enable=["Sleeper"])
    marker = agents_server.home / "slow.started"
    marker.unlink(missing_ok=True)
    events: list = []

    async def run():
        async for event in door.send('call Sleeper {"path": "-"}'):
            events.append(event)

    task = asyncio.create_task(run())
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < deadline and not task.done(), events
        await asyncio.sleep(0.1)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    child = next(e for e in events if isinstance(e, AgentStarted)).child
    state = await door.wire.aio.threads.get_state(door.shown.id)
    [answer] = [m for m in state["values"]["messages"] if m["type"] == "tool"]
    assert answer["content"] == INTERRUPTED_TOOL_TEXT
    scratch = str(uuid.uuid4())
    output = await door.wire.aio.runs.wait(scratch, "birdie_info", input={"child": child},
                                           if_not_exists="create")
    kinds = [m["type"] for m in output["child_messages"]]
    assert kinds == ["human", "ai", "tool"], kinds  # the child's call is answered too
    after = await turn(door.send("still there?"))
    assert after[-1].type == "done", after[-1]
