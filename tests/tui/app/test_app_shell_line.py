"""`!command` in the composer: run without a model call, shown as a tool block, its output
sent with the next message (✕ drops it); the read-only mode refuses it. Over both doors."""

from __future__ import annotations

import pytest

from birdie_tui.tui.widgets.attach_bar import AttachBar
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage

from .conftest import send, turns, wait_for, wait_ready, wait_turn


@pytest.mark.app
async def test_a_bang_command_runs_and_its_output_goes_with_the_next_message(any_app):
    """The command's block holds its output; no turn runs; the next message carries it."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "!echo hello from the shell")
        await wait_for(pilot, lambda: app.query(ToolBlock) and app.query(ToolBlock)[-1].finished)
        block = app.query(ToolBlock)[-1]
        assert "hello from the shell" in block.content and not block.error
        assert turns(app) == 0 and not app.query(UserMessage)  # no model call
        bar = app.query_one(AttachBar)
        assert bar.display and len(bar.entries) == 1
        await send(pilot, app, "what did it print?")
        await wait_turn(pilot, app)
        sent = app.query(UserMessage)[-1].text
        assert "`echo hello from the shell`" in sent and sent.endswith("what did it print?")
        assert "hello from the shell" in sent and bar.entries == []


@pytest.mark.app
async def test_a_dropped_output_is_not_sent_and_read_only_refuses_the_command(any_app):
    """✕ drops an output before it is sent; in read-only mode the command does not run."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "!echo drop me")
        bar = app.query_one(AttachBar)
        await wait_for(pilot, lambda: len(bar.entries) == 1)
        await pilot.pause()
        await pilot.click(bar.children[0], offset=(0, 0))
        await wait_for(pilot, lambda: bar.entries == [])
        app.birdie.set_approval_mode("read-only")
        await send(pilot, app, "!echo nope")
        await wait_for(pilot, lambda: app.query(ToolBlock)[-1].finished)
        block = app.query(ToolBlock)[-1]
        assert block.error and "read-only" in block.content and bar.entries == []
        await send(pilot, app, "plain")
        await wait_turn(pilot, app)
        assert "drop me" not in app.query(UserMessage)[-1].text
