"""The real app under Pilot: chat, tools, toggles, cancel, errors. Tests taking `any_app` run
over the local door and the fake one (what only the engine keeps, its session file, is checked
on the local door only). Over one door only: a provider failing mid-request (a fake door's
script: the offline model never fails)."""

from __future__ import annotations

import json

import pytest

from birdie_tui.events import TokenStreamed, TurnDone, TurnEvent
from birdie_tui.tui import create_app
from birdie_tui.tui.messages import EngineEvent
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.notice import ErrorBlock
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

from birdie_tui.tui.turn_view import TurnView

from tests.tui.fake_door import FakeDoor, Script

from .conftest import (enabled, is_fake, send, session_id, turns, unpace, wait_for, wait_ready,
                       wait_turn)


@pytest.mark.smoke
async def test_send_message_streams_reply(any_app, monkeypatch):
    """A paced reply streams in many pieces, from `injected` to `done`, as one turn."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "150")
    app = any_app()
    seen = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello there")
        await wait_turn(pilot, app)
        replies = list(app.query(AssistantMessage))
        assert len(replies) == 1 and "hello there" in replies[0].text
        kinds = [x.type for x in seen if isinstance(x, EngineEvent)]
        assert kinds.count("token") > 5  # streamed as it comes, not at the end
        turn_kinds = [k for k in kinds if k in {cls.type for cls in TurnView.EVENTS}]
        assert turn_kinds[0] == "injected" and turn_kinds[-1] == "done"
        assert turns(app) == 1
        if not is_fake(app):
            assert "offline model" in str(app.query_one("#status").render())


@pytest.mark.app
async def test_a_fast_reply_reaches_the_screen_in_few_messages(any_app):
    """Tokens that arrive together are posted together: a full-speed reply is a handful of
    messages (one per token would cost more than the frames that show them), all its text."""
    app = any_app()
    seen = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello there " * 200)
        await wait_turn(pilot, app)
        tokens = [x.event.text for x in seen if isinstance(x, EngineEvent) and x.type == "token"]
        reply = app.query_one(AssistantMessage)
        assert "".join(tokens) == reply.text and reply.rendered_text == reply.text
        assert 1 <= len(tokens) < 50 and len(reply.text.split()) > 400


@pytest.mark.app
async def test_a_token_after_a_pause_is_posted_on_the_next_turn(monkeypatch):
    """A token that arrives after a pause (a provider's chunk, merged per window already) is
    posted to the screen on the loop's next turn, not held for a timer: when the door is asked
    for the event after the next one, the first token is on its way to the screen."""
    monkeypatch.delenv("BIRDIE_OFFLINE_TPS", raising=False)  # the fake: a loop turn an event
    posted: list[list[str]] = []

    def script(text: str):
        yield TokenStreamed("Hello")
        yield TokenStreamed(", world")  # asked for one loop turn after the first
        posted.append([e.text for e in app.main.turns.record if isinstance(e, TokenStreamed)])
        yield TurnDone("Hello, world")

    app = create_app([], cursor_blink=False, door_factory=FakeDoor.factory(FakeDoor(script=script)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hi")
        await wait_turn(pilot, app)
        assert posted == [["Hello"]]
        assert app.query_one(AssistantMessage).text == "Hello, world"


@pytest.mark.app
async def test_tool_call_block_and_result(any_app):
    """A tool call shows a block with its literal result; a failing tool's block is an error."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, 'call echo_text {"text": "[b]not markup[/b]"}')
        await wait_turn(pilot, app)
        block = app.query_one(ToolBlock)
        assert block.name == "echo_text" and not block.error
        assert block.content == "[b]not markup[/b]"
        await send(pilot, app, "call fail_hard")
        await wait_turn(pilot, app)
        failed = list(app.query(ToolBlock))[-1]
        assert failed.error and "broken" in failed.content


@pytest.mark.smoke
async def test_click_skill_toggle_persists_and_changes_next_turn(any_app, isolated_home):
    """A clicked skill row toggles; the grant is saved with the next turn and gates the tool."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        sidebar = app.query_one(SkillSidebar)
        names = [s.name for s in app.birdie.skill_rows()]
        index = names.index("Quiet")
        options = sidebar.query_one(".skills--list")
        # Click the Quiet row (rows start at the list's top edge; one row per skill).
        await pilot.click(options, offset=(2, index))
        await wait_for(pilot, lambda: enabled(app, "Quiet"))
        sid = session_id(app)
        session_file = isolated_home / "sessions" / "tester" / f"{sid}.json"
        local = not is_fake(app)  # the session file is the engine's
        assert not (local and session_file.exists())  # nothing sent yet: the grant waits
        await send(pilot, app, "call hush")
        await wait_turn(pilot, app)
        assert app.query_one(ToolBlock).name == "hush"
        if local:
            assert json.loads(session_file.read_text())["enabled_skills"] == ["Quiet"]
        # and off again: the next turn cannot call it
        await pilot.click(options, offset=(2, index))
        await wait_for(pilot, lambda: not enabled(app, "Quiet"))
        await send(pilot, app, "call hush")
        await wait_turn(pilot, app)
        assert len(app.query(ToolBlock)) == 1
        assert "not available" in list(app.query(AssistantMessage))[-1].text


@pytest.mark.app
async def test_escape_cancels_mid_stream(any_app, monkeypatch):
    """Esc mid-stream interrupts the reply, leaves a valid history, and the next turn works."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "40")
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "tell me a long story " * 5)
        await wait_for(pilot, lambda: app.main.turn.reply is not None and len(app.main.turn.reply.text) > 20)
        await pilot.press("escape")
        await wait_turn(pilot, app)
        reply = list(app.query(AssistantMessage))[-1]
        assert reply.interrupted
        # What the door keeps of it (a valid history: tests/agent checks the engine's own).
        history = await app.birdie.transcript()
        assert history[-1].role == "assistant" and "interrupted" in history[-1].content
        await unpace(app, monkeypatch)
        await send(pilot, app, "still there?")
        await wait_turn(pilot, app)
        assert "still there?" in list(app.query(AssistantMessage))[-1].text


def exploding_once() -> Script:
    """A provider that fails mid-request the first time (a fake door's script)."""
    asked: list[str] = []

    def script(text: str) -> list[TurnEvent]:
        asked.append(text)
        if len(asked) == 1:
            raise RuntimeError("provider said 500: upstream exploded")
        return [TokenStreamed(text=f"answer to {text}"), TurnDone(text=f"answer to {text}")]

    return script


@pytest.mark.app
async def test_engine_error_shows_block_and_app_survives(skills_dir):
    """A provider failure shows an error block; the app keeps running and answers once fixed.
    (A fake door whose first turn raises, as the engine's does when its model does.)"""
    door = FakeDoor(script=exploding_once())
    app = create_app(["--skills-dir", str(skills_dir)], cursor_blink=False,
                     door_factory=FakeDoor.factory(door))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello")
        await wait_turn(pilot, app)
        error = app.query_one(ErrorBlock)
        assert "upstream exploded" in str(error.render())
        assert app.is_running
        await send(pilot, app, "and now?")
        await wait_turn(pilot, app)
        assert "and now?" in list(app.query(AssistantMessage))[-1].text


@pytest.mark.app
async def test_slash_commands_and_unknown_hint(any_app):
    """Slash commands act (/remember, /skill disable); unknown or malformed ones get a hint."""
    app = any_app()
    notes = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        app.notify = lambda text, **kw: notes.append(text)  # collect toasts
        await send(pilot, app, "/remember likes tea")
        await send(pilot, app, "/skill disable echoer")
        await send(pilot, app, "/nope")
        await send(pilot, app, "/tool output sideways")
        await wait_for(pilot, lambda: len(notes) >= 4)
        assert [n.content for n in app.birdie.memory()] == ["likes tea"]
        assert not enabled(app, "Echoer")
        assert any("Unknown command /nope" in n for n in notes)
        assert any("usage: /tool" in n for n in notes)
