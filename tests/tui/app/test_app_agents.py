"""Sub-agents in the TUI: the nested block a sub-agent call becomes (streamed text, nested tool
calls, status, `/agent output`), approvals naming the agent, Esc during a child, two children
at once, the sidebar's Agents section (toggles, broken files), `/agent` commands, the tokens tab,
the context panel's child calls and the session browser's line.

End to end over the local door with the offline model (a prompt template `call <tool> {json}`
makes the child call a tool); what only needs events is scripted on the fake door."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from birdie_tui.events import (AgentFinished, AgentStarted, ChildEvent, TokenStreamed,
                               ToolCallStarted, ToolFinished, TurnDone, TurnEvent, UsageReported)
from birdie_tui.service.rows import AgentRow, AgentRunRow, BrokenAgentFile
from birdie_tui.tui import create_app
from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.screens.session_browser import SessionBrowser
from birdie_tui.tui.widgets.chat.agent_block import SHORT_CHARS, AgentBlock
from birdie_tui.tui.widgets.chat.notice import ErrorBlock
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel
from birdie_tui.tui.widgets.skills.agent_section import AgentSection
from tests.tui.fake_door import FakeDoor

from tests.agent.conftest import AGENTS, write_agents

from .conftest import send, wait_for, wait_ready, wait_turn

ARMED = ApprovalScreen.ARM_SECONDS + 0.1


@pytest.fixture
def agents_app(skills_dir, tmp_path, monkeypatch):
    """The app over the local door with the test agents (and `extra` ones) in --agents-dir."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIRDIE_WATCH", "0")

    def factory(*argv: str, extra: dict[str, str] | None = None):
        agents = write_agents(tmp_path / "agents", extra)
        return create_app(["--skills-dir", str(skills_dir), "--agents-dir", str(agents), *argv],
                          cursor_blink=False)

    return factory


def blocks(app) -> list[AgentBlock]:
    return list(app.query(AgentBlock))


def session_json(app, home: Path) -> dict:
    sid = app.birdie.status().session_id
    return json.loads((home / "sessions" / "tester" / f"{sid}.json").read_text())


# ------------------------------------------------------------------ end to end (local door)
@pytest.mark.app
async def test_a_child_asks_in_the_parents_dialog_and_its_work_streams_in_a_nested_block(
        agents_app, tmp_path):
    """A parent turn calls Toucher, whose child calls a gated tool: the parent's dialog names
    the agent, y lets the child go on, and the nested block holds its text and tool call."""
    app = agents_app("--enable", "Toucher")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, 'call Toucher {"path": "made.txt"}')
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(ARMED)
        question = str(app.screen.query_one("#approval-question").render())
        assert question.startswith("Toucher wants to run touch_file")
        assert app.screen.request.agent == "Toucher"
        block, = blocks(app)
        assert block.tool_blocks[0].held == "waiting for approval"
        await pilot.press("y")
        await wait_turn(pilot, app)
        assert (tmp_path / "made.txt").exists()
        block, = blocks(app)  # the parent's tool block became the agent's block
        assert block.agent == "Toucher" and block.status == "done"
        assert "Toucher" in block.title_text and "done" in block.title_text
        assert not [b for b in app.query(ToolBlock) if b.name == "Toucher"]
        nested, = block.tool_blocks
        assert (nested.name, nested.finished, nested.error) == ("touch_file", True, False)
        assert "touch_file" in block.text  # the child's streamed reply
        assert block.answer is not None and "touch_file" in block.answer
        assert block.calls == 2 and block.tokens > 0
        # The session's own reply saw the answer; tokens per agent reach the Tokens tab.
        panel = app.query_one(TokenPanel)
        assert [a.name for a in panel.view.agents] == ["Toucher"]
        assert "Sub-agents" in str(panel.query_one(".tokens--agents").render())


@pytest.mark.app
async def test_esc_during_a_child_cancels_the_turn_and_the_next_turn_works(
        agents_app, isolated_home):
    """Esc while the child's tool runs: the block says cancelled, and a next turn runs (every
    history was left valid)."""
    app = agents_app("--enable", "Sleeper")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "call Sleeper")
        await wait_for(pilot, lambda: (isolated_home / "slow.started").exists(), timeout=20)
        await wait_for(pilot, lambda: bool(blocks(app)) and bool(blocks(app)[0].tool_blocks))
        await pilot.press("escape")
        await wait_turn(pilot, app)
        block, = blocks(app)
        assert block.status == "cancelled" and "cancelled" in block.title_text
        assert all(b.finished for b in block.tool_blocks)
        await send(pilot, app, "hello after the cancel")
        await wait_turn(pilot, app)
        assert not list(app.query(ErrorBlock))
        assert app.birdie.status().turns == 2


@pytest.mark.app
async def test_two_sub_agents_of_one_message_stream_into_two_blocks(agents_app):
    """Two calls in one message: each child streams into its own block; both runs open from
    the context panel with the child's own calls, named by the agent."""
    app = agents_app("--enable", "Repeater")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, 'call Repeater {"text": "first bird"}\n'
                               'call Repeater {"text": "second bird"}')
        await wait_turn(pilot, app)
        one, two = blocks(app)
        assert "Please repeat: first bird" in one.text and "second bird" not in one.text
        assert "Please repeat: second bird" in two.text and "first bird" not in two.text
        assert one.status == two.status == "done" and one.child != two.child
        # Both runs open from the context panel, with the child's own calls.
        panel = app.query_one(ContextPanel)
        await wait_for(pilot, lambda: len(panel.runs.runs) == 2)
        assert {r.agent for r in panel.runs.runs} == {"Repeater"}
        await app.main._open_child(one.child, "Repeater")
        assert panel.child == (one.child, "Repeater") and panel.calls.records
        assert str(panel.query_one(".context--summary").render()).startswith(
            "Repeater · Turn 1 · call 1 of 1")
        await app.main._open_child(None, "")
        assert panel.child is None


@pytest.mark.app
async def test_a_broken_agent_file_shows_in_the_sidebar_and_the_app_runs_on(agents_app):
    """An AGENT.MD that does not parse is listed under the Agents section; the good ones load
    and a turn still runs."""
    app = agents_app(extra={"broken": "---\nname: [not, a, name\n---\n\n## Prompt\n\nhi\n"})
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        section = app.query_one(AgentSection)
        await wait_for(pilot, lambda: section.broken_count == 1)
        shown = str(section.query_one("BrokenFiles .broken-files--items").render())
        assert "broken/AGENT.MD" in shown
        names = {r.name for r in section.rows}  # every good file, the bundled one too
        assert names >= {"Repeater", "Toucher", "Sleeper", "Summarizer"}
        assert len(names) == len(AGENTS) + 1
        await send(pilot, app, "still here")
        await wait_turn(pilot, app)
        assert app.is_running and app.birdie.status().turns == 1


@pytest.mark.app
async def test_agent_commands_and_the_sidebar_toggle_are_kept_in_the_session(
        agents_app, isolated_home):
    """/agent list|enable|disable|output and the sidebar's toggle: the grants land in the
    session JSON as Birdie keeps them, the output mode in the settings (applied at start)."""
    app = agents_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "/agent list")
        await wait_for(pilot, lambda: "| **Repeater** | ○ off |" in notices(app))
        await send(pilot, app, "/agent enable repeater")
        await wait_for(pilot, lambda: agent(app, "Repeater").enabled)
        section = app.query_one(AgentSection)
        assert next(r for r in section.rows if r.name == "Repeater").enabled
        await send(pilot, app, "hello")  # the session is saved from its first message
        await wait_turn(pilot, app)
        assert session_json(app, isolated_home)["enabled_agents"] == ["Repeater"]
        # The sidebar toggles by click as the skill list does.
        index = [r.name for r in section.rows].index("Toucher")
        section.query_one(".agents--list").highlighted = index
        section.action_toggle_highlighted()
        await wait_for(pilot, lambda: agent(app, "Toucher").enabled)
        await send(pilot, app, "/agent disable Repeater")
        await wait_for(pilot, lambda: not agent(app, "Repeater").enabled)
        data = session_json(app, isolated_home)
        assert "Toucher" in data["enabled_agents"] and "Repeater" in data["disabled_agents"]
        await send(pilot, app, "/agent output full")
        await wait_for(pilot, lambda: app.main.chat.agent_output_mode == "full")
        assert app.birdie.settings().agent_output == "full"
        await send(pilot, app, "/agent enable Nobody")
        await wait_for(pilot, lambda: any("Nobody" in e.message
                                          for e in app.query(ErrorBlock)))
    # The mode is applied at the next start, like /tool output.
    again = agents_app()
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, again)
        assert again.main.chat.agent_output_mode == "full"


def agent(app, name: str) -> AgentRow:
    return next(row for row in app.birdie.agent_rows() if row.name == name)


def notices(app) -> str:
    chat = app.query_one("#chat")
    return "\n".join(getattr(w, "source", "") or getattr(w, "text", "")
                     for w in chat.children if w.has_class("notice"))


# ------------------------------------------------------------------ scripted (fake door)
def _interleaved(text: str) -> list[TurnEvent]:
    """Two children of one step, their events interleaved as concurrent calls send them."""
    long = "x" * (SHORT_CHARS + 250)

    def child(n: str, event: object) -> ChildEvent:
        return ChildEvent(f"s/agent/A{n}", "Alpha" if n == "1" else "Beta", event)  # type: ignore[arg-type]

    return [
        ToolCallStarted("c1", "Alpha", {"text": "one"}), ToolCallStarted("c2", "Beta", {}),
        AgentStarted("s/agent/A1", "c1", "Alpha", {"text": "one"}),
        AgentStarted("s/agent/A2", "c2", "Beta", {}),
        child("1", TokenStreamed("alpha says ")), child("2", TokenStreamed("beta says ")),
        child("2", ToolCallStarted("t1", "echo_text", {"text": "b"})),
        child("1", TokenStreamed("hello")), child("2", ToolFinished("t1", "echo_text", "b", False)),
        child("2", TokenStreamed(long)), child("1", UsageReported(10, 5)),
        child("2", UsageReported(20, 7)),
        AgentFinished("s/agent/A1", "c1", "Alpha", "done", 10, 5, 1),
        AgentFinished("s/agent/A2", "c2", "Beta", "error", 20, 7, 1, error="output invalid"),
        ToolFinished("c1", "Alpha", "alpha says hello", False),
        ToolFinished("c2", "Beta", "output invalid", True),
        TokenStreamed("both answered"), UsageReported(3, 2), TurnDone("both answered"),
    ]


@pytest.mark.app
async def test_interleaved_children_each_stream_into_their_own_block_as_the_mode_says():
    """Two children's events interleaved: each block gets its own text, tools and status;
    short cuts the text (counting the rest), full shows it, off leaves the headers."""
    door = FakeDoor(script=_interleaved, agents=[AgentRow("Alpha", "a", True),
                                                 AgentRow("Beta", "b", True)])
    app = create_app([], cursor_blink=False, door_factory=FakeDoor.factory(door))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "go")
        await wait_turn(pilot, app)
        alpha, beta = blocks(app)
        assert alpha.text == "alpha says hello" and alpha.status == "done"
        assert alpha.collapsed  # short: a finished block closes
        assert beta.text.startswith("beta says x") and beta.status == "error"
        assert not beta.collapsed and "error" in beta.title_text  # an error stays open
        assert [b.name for b in beta.tool_blocks] == ["echo_text"]
        assert "260 more characters" in beta.more_text  # short: cut at SHORT_CHARS
        assert "1 call" in alpha.title_text and "15 tokens" in alpha.title_text
        await pilot.click(alpha._header)
        assert not alpha.collapsed
        app.main.set_agent_output("full")
        await pilot.pause(0.3)
        assert beta.more_text == "" and not alpha.collapsed
        app.main.set_agent_output("off")
        await pilot.pause()
        assert alpha.collapsed and beta.collapsed
        assert door.settings().agent_output == "off"


@pytest.mark.app
async def test_palette_help_tab_and_the_session_browser_know_the_agents():
    """/help lists /agent, Tab completes agent names, the palette enables and disables them,
    and the session browser says a session's sub-agent runs."""
    door = FakeDoor(agents=[AgentRow("Summarizer", "Sums up.", False, inputs=("text (string)",))])
    app = create_app([], cursor_blink=False, door_factory=FakeDoor.factory(door))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        door.session.runs = [AgentRunRow("x/agent/S-1", "Summarizer", 1, "done", 10, 2, 1),
                             AgentRunRow("x/agent/S-2", "Summarizer", 2, "done", 10, 2, 1)]
        from birdie_tui.tui.cmds import help_markdown
        from birdie_tui.tui.palette import BirdieCommands
        from birdie_tui.tui.widgets.composer import Composer

        assert "/agent enable <name>" in help_markdown()
        assert "/agent enable Summarizer" in app.query_one(Composer).matching_commands(
            "/agent enable S")
        titles = [t for t, _c, _h in BirdieCommands(app.screen)._commands()]
        assert "Enable agent Summarizer" in titles
        app.main.toggle_agent("Summarizer", True)
        await pilot.pause()
        titles = [t for t, _c, _h in BirdieCommands(app.screen)._commands()]
        assert "Disable agent Summarizer" in titles
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
        line = app.screen.query_one("#sessions-runs")
        await wait_for(pilot, lambda: line.display)
        assert str(line.render()) == "↳ 2 agent runs: Summarizer ×2"


@pytest.mark.app
async def test_a_broken_agent_file_on_the_fake_door_is_listed_with_its_line():
    """A broken agent file reads path:line — message in the sidebar."""
    door = FakeDoor(agents=[AgentRow("Alpha", "a", False)])
    door.broken_agents = [BrokenAgentFile("/x/agents/bad/AGENT.MD", 3, "name: missing")]
    app = create_app([], cursor_blink=False, door_factory=FakeDoor.factory(door))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        section = app.query_one(AgentSection)
        assert section.broken_count == 1
        items = str(section.query_one("BrokenFiles .broken-files--items").render())
        assert items == "bad/AGENT.MD:3 — name: missing"


@pytest.mark.app
async def test_a_reopened_session_shows_its_agent_calls_as_finished_blocks(agents_app):
    """Opened again, a session's sub-agent calls are agent blocks (done, their calls and
    tokens, the answer), not plain tool blocks."""
    app = agents_app("--enable", "Repeater")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, 'call Repeater {"text": "kept bird"}')
        await wait_turn(pilot, app)
        live, = blocks(app)
        sid = app.birdie.status().session_id
        await app.main.sessions.new()
        await app.main.sessions.show_current(new=True)
        assert blocks(app) == []
        await app.main.sessions.switch(sid)
        await app.main.sessions.show_current()
        await wait_for(pilot, lambda: len(blocks(app)) == 1)
        again, = blocks(app)
        assert again.agent == "Repeater" and again.status == "done"
        assert again.child == live.child and again.calls == live.calls == 1
        assert again.tokens == live.tokens and "kept bird" in again.answer
