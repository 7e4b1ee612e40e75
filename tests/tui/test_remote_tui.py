"""The real app under Pilot attached to a real `langgraph dev` (`birdie-tui --server URL`):
the session browser lists the server's threads, a typed message streams its reply, the
approval dialog comes up for a gated call and `y` runs it on the server, the token panel
shows the thread state's figures, and Esc cancels a slow run on the server."""

from __future__ import annotations

import asyncio

import pytest

from birdie_tui.service import remote_birdie
from birdie_tui.tui import create_app
from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.screens.session_browser import SessionBrowser
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel
from tests.tui.app.conftest import send, wait_for, wait_ready, wait_turn

pytestmark = [pytest.mark.slow, pytest.mark.integration]
ARMED = ApprovalScreen.ARM_SECONDS + 0.1


@pytest.fixture(scope="module")
def server(skills_server):
    return skills_server  # one `langgraph dev` per module, serving the test skills


@pytest.fixture
def app_for(server, monkeypatch):
    monkeypatch.setenv("BIRDIE_WATCH", "0")

    def factory(*argv: str):
        return create_app(["--server", server.url, *argv], cursor_blink=False)

    return factory


async def thread_usage(url: str, thread_id: str) -> tuple[int, int]:
    """The input and output tokens the thread's AI messages carry (the server's truth)."""
    from langgraph_sdk import get_client

    state = await get_client(url=url, api_key=None).threads.get_state(thread_id)
    usage = [m["usage_metadata"] for m in state["values"]["messages"]
             if m["type"] == "ai" and m.get("usage_metadata")]
    return sum(u["input_tokens"] for u in usage), sum(u["output_tokens"] for u in usage)


async def test_browser_lists_the_servers_threads(app_for, server):
    """A thread another client made on the server is in the browser, with its title, and
    opening it replays its history."""
    other = remote_birdie(server.url)
    await other.start()
    async for _ in other.send("notes about the lighthouse"):
        pass
    thread = other.status().session_id
    await other.close()
    app = app_for()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert app.birdie.status().model.startswith("remote: 127.0.0.1:")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
        browser = app.screen
        await wait_for(pilot, lambda: browser.row(thread) is not None)
        assert browser.row(thread).title == "notes about the lighthouse"
        for ch in thread[:6]:
            await pilot.press(ch)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.birdie.status().session_id == thread)
        await wait_for(pilot, lambda: any("lighthouse" in m.text
                                          for m in app.query(AssistantMessage)))


async def test_a_turn_streams_asks_and_counts_like_the_thread(app_for, server):
    """The reply streams into the chat; the gated call's dialog appears and `y` runs it on
    the server; the token panel's session figures are the thread state's."""
    app = app_for()
    target = server.workdir / "from-tui.txt"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello server")
        await wait_turn(pilot, app)
        assert "hello server" in list(app.query(AssistantMessage))[-1].text
        await send(pilot, app, f'call touch_file {{"path": "{target}"}}')
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert app.screen.request.name == "touch_file" and app.screen.request.skill == "Guarded"
        await pilot.pause(ARMED)
        await pilot.press("y")
        await wait_turn(pilot, app)
        assert target.exists()
        assert [(b.name, b.error) for b in app.query(ToolBlock)] == [("touch_file", False)]
        view = app.query_one(TokenPanel).view
        spent = await thread_usage(server.url, app.birdie.status().session_id)
        assert (view.session_in, view.session_out) == spent and spent[0] > 0
        assert view.turns == 2 and len(view.per_turn) == 2


async def test_escape_cancels_a_slow_run_on_the_server(app_for, server):
    """Esc during a slow tool stops the turn here and the run on the server; the next
    message runs."""
    app = app_for()
    marker = server.home / "slow.started"
    marker.unlink(missing_ok=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "call slow {}")
        await wait_for(pilot, marker.exists, timeout=60)
        await pilot.press("escape")
        await wait_turn(pilot, app)
        thread = await app.birdie.wire.aio.threads.get(app.birdie.status().session_id)
        assert thread["status"] != "busy"
        await send(pilot, app, "still there?")
        await wait_turn(pilot, app)
        await asyncio.sleep(0)
        assert "still there?" in list(app.query(AssistantMessage))[-1].text
