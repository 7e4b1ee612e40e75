"""The real app under Pilot attached to a real `langgraph dev` (`birdie-tui --server URL`):
the session browser lists the server's threads, a typed message streams its reply, the
approval dialog comes up for a gated call and `y` runs it on the server, the token panel
shows the thread state's figures, and Esc cancels a slow run on the server. Threads side by
side: a run left for another thread streams on and shows when back; another client's turn in
the shown thread shows without reopening."""

from __future__ import annotations

import asyncio

import pytest

from birdie_tui.service import remote_birdie
from birdie_tui.tui import create_app
from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.screens.session_browser import SessionBrowser
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel
from tests.tui.app.conftest import (last_reply, row_of, send, session_id as shown_session,
                                    wait_for, wait_ready, wait_turn)

pytestmark = [pytest.mark.slow, pytest.mark.integration]
ARMED = ApprovalScreen.ARM_SECONDS + 0.1
WORDS = " ".join(f"w{i}" for i in range(60))
MESSAGE = f"tell me {WORDS} finale"  # the offline model's echo: ~3 s at 20 tokens a second


@pytest.fixture(scope="module")
def server(skills_server):
    return skills_server  # one `langgraph dev` per module, serving the test skills


@pytest.fixture
def app_for(server, monkeypatch):
    monkeypatch.setenv("BIRDIE_WATCH", "0")

    def factory(*argv: str):
        return create_app(["--server", server.url, *argv], cursor_blink=False)

    return factory


@pytest.fixture(scope="module")
def paced_server(tmp_path_factory):
    """A `langgraph dev` whose offline model streams 20 tokens a second (a reply takes ~3 s)."""
    from tests.agent.conftest import write_skills
    from tests.lg_server import start_server

    tmp = tmp_path_factory.mktemp("paced-server")
    started = start_server(home=tmp / "home", workdir=tmp / "work",
                           skills_dirs=[write_skills(tmp / "skills")],
                           env={"BIRDIE_OFFLINE_TPS": "20"})
    yield started
    started.stop()


def sent(app) -> list[str]:
    return [str(w.render()) for w in app.query(UserMessage)]


async def start_slow_turn(pilot, app) -> str:
    """Send MESSAGE; wait for its first tokens; the thread's id."""
    await wait_ready(pilot, app)
    await send(pilot, app, MESSAGE)
    await wait_for(pilot, lambda: "w3" in last_reply(app), timeout=30)
    assert app.main.turn_running
    return shown_session(app)


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


async def test_a_run_left_for_a_new_thread_finishes_and_shows_when_back(paced_server,
                                                                        monkeypatch):
    """ctrl+n while a run streams: it runs to its end, counted in its own thread (the
    browser's figures, the token panel's); switching back shows the whole reply, not
    `[interrupted]`."""
    monkeypatch.setenv("BIRDIE_WATCH", "0")
    app = create_app(["--server", paced_server.url], cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        first = await start_slow_turn(pilot, app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: shown_session(app) != first)
        assert not app.main.turn_running  # the new thread's screen is free
        await wait_for(pilot, lambda: row_of(app, first).turns == 1
                       and row_of(app, first).input_tokens > 0, timeout=30)
        await send(pilot, app, f"/session switch {first}")
        await wait_for(pilot, lambda: shown_session(app) == first)
        await wait_for(pilot, lambda: "finale" in last_reply(app))
        await wait_turn(pilot, app)
        assert "interrupted" not in last_reply(app) and sent(app).count(MESSAGE) == 1
        items = await app.birdie.transcript()
        assert items[-1].role == "assistant" and "finale" in items[-1].content
        ledger = app.birdie.ledger()
        spent = await thread_usage(paced_server.url, first)
        assert (ledger.session_in, ledger.session_out) == spent and ledger.turns == 1


async def test_switching_back_mid_run_shows_the_live_stream(paced_server, monkeypatch):
    """Back before the run ended: the browser marked the thread busy meanwhile; the reply so
    far, then the rest streaming in the chat, once."""
    monkeypatch.setenv("BIRDIE_WATCH", "0")
    app = create_app(["--server", paced_server.url], cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        first = await start_slow_turn(pilot, app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: shown_session(app) != first)
        assert row_of(app, first).busy == "running"  # the server's word, this client's run
        await send(pilot, app, f"/session switch {first}")
        await wait_for(pilot, lambda: shown_session(app) == first)
        assert app.main.turn_running  # the run is the screen's again
        await wait_turn(pilot, app)
        reply = last_reply(app)
        assert "finale" in reply and "w0" in reply and "interrupted" not in reply
        assert len(list(app.query(AssistantMessage))) == 1 and sent(app) == [MESSAGE]


async def test_another_clients_turn_shows_without_reopening(app_for, server):
    """A second client adds a turn to the thread the app shows: the chat shows it without
    reopening, and the status bar says the thread is open elsewhere."""
    app = app_for()
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "first from the app")
        await wait_turn(pilot, app)
        thread = shown_session(app)
        other = remote_birdie(server.url, user="alice")
        await other.start(session_id=thread)
        async for _ in other.send("hello from elsewhere"):
            pass
        await other.close()
        await wait_for(pilot, lambda: "hello from elsewhere" in sent(app), timeout=20)
        assert sent(app) == ["first from the app", "hello from elsewhere"]
        assert shown_session(app) == thread
        status = app.query_one("#status")
        await wait_for(pilot, lambda: "open elsewhere: alice@" in status.others)
        assert app.birdie.status().turns == 2
