"""Sub-agents as an ACP client sees them: the agent's call is a tool call whose content is the
child's text, the child's calls are tool calls titled with the agent, and a child's gated call
is asked with `session/request_permission` naming the agent."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from birdie_tui.acp.children import ChildCalls
from birdie_tui.acp.updates import ToolCalls
from birdie_tui.events import (AgentFinished, AgentStarted, ChildEvent, TokenStreamed,
                               ToolCallStarted, ToolFinished, TurnDone, UsageReported)
from tests.acp.harness import Recorder, agent, prompt
from tests.acp.test_acp_turns import relay
from tests.tui.fake_door import FakeDoor

WRITER = """
    ---
    name: Writer
    description: Writes notes.
    allowed_skills: [filesystem]
    ---

    ## Input

    ### path
    type: string

    ## Prompt

    call write_file {"path": "{{ path }}", "content": "from the child"}
    """


async def test_a_child_streams_into_its_call_and_its_calls_are_titled_with_the_agent(tmp_path):
    """Over the fake door's scripted turn: the relay's updates for a sub-agent call."""
    script = [
        ToolCallStarted(id="p1", name="Writer", args={"path": "a.md"}),
        AgentStarted(child="s/agent/Writer-1", call_id="p1", name="Writer", inputs={}),
        ChildEvent(child="s/agent/Writer-1", agent="Writer", event=TokenStreamed("thinking")),
        ChildEvent(child="s/agent/Writer-1", agent="Writer",
                   event=ToolCallStarted(id="c1", name="write_file", args={"path": "a.md"})),
        ChildEvent(child="s/agent/Writer-1", agent="Writer",
                   event=ToolFinished(id="c1", name="write_file", content="ok", error=False)),
        ChildEvent(child="s/agent/Writer-1", agent="Writer", event=UsageReported(7, 3)),
        ChildEvent(child="s/agent/Writer-1", agent="Writer", event=TokenStreamed(" done")),
        AgentFinished(child="s/agent/Writer-1", call_id="p1", name="Writer", status="done"),
        ToolFinished(id="p1", name="Writer", content="thinking done", error=False),
        UsageReported(10, 2), TurnDone(text="ok")]
    answer, sent = await relay(FakeDoor(script=lambda text: list(script)), tmp_path)
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (17, 5)
    agent_call = [u for u in sent if getattr(u, "tool_call_id", "") == "p1"]
    assert agent_call[1].title == "Agent Writer" and agent_call[1].status == "in_progress"
    texts = [u.content[0].content.text for u in agent_call if u.content]
    assert texts[0] == "thinking" and "thinking done" in texts[-1]
    child_start = next(u for u in sent if getattr(u, "tool_call_id", "") == "c1")
    assert child_start.title.startswith("Writer › write_file")


def test_a_streaming_childs_text_is_sent_at_most_every_so_often():
    """A child's tokens are coalesced into few content updates, and its end sends the whole text."""
    calls = ChildCalls(ToolCalls("/tmp"))
    calls.updates(AgentStarted(child="k", call_id="p", name="A", inputs={}))
    sent = [calls.updates(ChildEvent(child="k", agent="A", event=TokenStreamed("x")))
            for _ in range(50)]
    assert sum(len(s) for s in sent) == 1  # 50 tokens at once: one update
    final = calls.updates(AgentFinished(child="k", call_id="p", name="A", status="done"))
    assert final[0].content[0].content.text == "x" * 50


@pytest.mark.integration
async def test_a_childs_write_asks_the_editor_naming_the_agent(tmp_path: Path):
    """Over a real `birdie-tui acp`: a child's write asks the editor naming the agent, runs once
    allowed, and /agent lists and toggles."""
    home = tmp_path / "home"
    (home / "agents" / "writer").mkdir(parents=True)
    (home / "agents" / "writer" / "AGENT.MD").write_text(textwrap.dedent(WRITER).lstrip())
    work = tmp_path / "work"
    work.mkdir()
    client = Recorder(answer="allow_once")
    async with agent(home, client, "--enable", "Writer") as (conn, _):
        sid = (await conn.new_session(cwd=str(work))).session_id
        done = await conn.prompt(session_id=sid, prompt=prompt('call Writer {"path": "n.md"}'))
        assert done.stop_reason == "end_turn"
        tool_call, _options = client.asked[0]
        assert tool_call.title.startswith("Writer › write_file")
        assert (work / "n.md").read_text() == "from the child"
        titles = [u.title for u in client.of_kind("tool_call_update") if u.title]
        assert "Agent Writer" in titles
        assert done.usage.input_tokens > 0
        before = len(client.text(sid))
        await conn.prompt(session_id=sid, prompt=prompt("/agent list"))
        assert "on  **Writer** — Writes notes." in client.text(sid)[before:]
        await conn.prompt(session_id=sid, prompt=prompt("/agent disable writer"))
        assert "Sub-agent **Writer** is off" in client.text(sid)
