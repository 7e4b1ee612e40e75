"""Messages typed while a turn runs are queued, shown above the composer, and sent when the
turn ends; Esc cancels the turn, not the queue; ↑ takes one back to edit; ✕ drops one. Over
both doors."""

from __future__ import annotations

import pytest

from birdie_tui.tui.widgets.chat.user_message import UserMessage
from birdie_tui.tui.widgets.queue_bar import QueueBar

from .conftest import send, unpace, wait_for, wait_ready, wait_turn


def users(app) -> list[str]:
    return [m.text for m in app.query(UserMessage)]


def queued(app) -> list[str]:
    return [q.text for q in app.query_one(QueueBar).mine()]


@pytest.mark.app
async def test_a_message_sent_during_a_turn_waits_and_goes_when_it_ends(any_app, monkeypatch):
    """Enter during a turn queues the message (shown, not sent); it is sent when the turn
    ends, and the one after it when that turn ends."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "20")  # slow enough to queue two on a busy machine
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "tell me a long story " * 8)
        await wait_for(pilot, lambda: app.main.turn_running)
        await send(pilot, app, "second")
        await send(pilot, app, "third")
        assert queued(app) == ["second", "third"]
        assert users(app)[-1].startswith("tell me")  # not sent yet
        bar = app.query_one(QueueBar)
        assert bar.display and "second" in str(bar.children[0].render())
        await unpace(app, monkeypatch)
        await wait_for(pilot, lambda: users(app)[-2:] == ["second", "third"], timeout=30)
        await wait_turn(pilot, app)
        assert queued(app) == [] and not app.query_one(QueueBar).display


@pytest.mark.app
async def test_escape_cancels_the_turn_and_the_queue_goes_on(any_app, monkeypatch):
    """Esc stops the running turn; what was queued is then sent, not lost."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "40")
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "tell me a long story " * 5)
        await wait_for(pilot, lambda: app.main.turn_running)
        await send(pilot, app, "after the stop")
        await unpace(app, monkeypatch)
        await pilot.press("escape")
        await wait_for(pilot, lambda: users(app)[-1] == "after the stop", timeout=30)
        await wait_turn(pilot, app)
        assert queued(app) == []


@pytest.mark.app
async def test_up_takes_a_queued_message_back_and_its_cross_drops_one(any_app, monkeypatch):
    """↑ in an empty composer takes the newest queued message back to edit; a click on ✕
    drops one; neither is sent."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "20")
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "tell me a long story " * 8)
        await wait_for(pilot, lambda: app.main.turn_running)
        await send(pilot, app, "drop me")
        await send(pilot, app, "edit me")
        composer = app.query_one("#composer")
        await pilot.press("up")
        assert composer.text == "edit me" and queued(app) == ["drop me"]
        await pilot.pause()
        row = app.query_one(QueueBar).children[0]
        await pilot.click(row, offset=(0, 0))  # its ✕
        await wait_for(pilot, lambda: queued(app) == [])
        await pilot.press("escape")
        await wait_turn(pilot, app)
        assert "drop me" not in users(app) and "edit me" not in users(app)
        assert composer.text == "edit me"
