"""A turn belongs to its session: switching away keeps it running, switching back shows it,
the browser and the status bar say which sessions are busy, quitting asks first. Over both
doors; another process's turn is a real `--print` on the local door (integration) and
`add_turn_elsewhere` on the fake one."""

from __future__ import annotations

import asyncio
import sys

import pytest

from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.session_browser import SessionBrowser
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.user_message import UserMessage

from ...conftest import clean_env
from .conftest import last_reply, row_of, send, wait_for, wait_ready, wait_turn
from .conftest import session_id as shown_session

pytestmark = pytest.mark.app  # the whole app under Pilot (CONTRIBUTING.md, Test tiers)

WORDS = " ".join(f"w{i}" for i in range(60))
MESSAGE = f"tell me {WORDS} finale"


async def start_slow_turn(pilot, app, monkeypatch, tps: str) -> str:
    """Send MESSAGE, paced by the offline model; wait for its first tokens; the session id."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", tps)
    await wait_ready(pilot, app)
    await send(pilot, app, MESSAGE)
    await wait_for(pilot, lambda: "w3" in last_reply(app))
    assert app.main.turn_running
    return shown_session(app)


async def test_a_turn_left_for_a_new_session_finishes_and_shows_when_back(any_app, monkeypatch):
    """ctrl+n mid-turn: the turn runs to its end in the background, its history is saved,
    and switching back shows the whole reply, not `[interrupted]`."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        first = await start_slow_turn(pilot, app, monkeypatch, "40")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: shown_session(app) != first)
        assert not app.main.turn_running  # the new session's screen is free
        # Counted by its own session view, as a turn on screen is.
        await wait_for(pilot, lambda: row_of(app, first).turns == 1
                       and row_of(app, first).input_tokens > 0, timeout=20)
        await send(pilot, app, f"/session switch {first}")
        await wait_for(pilot, lambda: shown_session(app) == first)
        await wait_for(pilot, lambda: "finale" in last_reply(app))
        await wait_turn(pilot, app)
        assert "interrupted" not in last_reply(app)
        assert [str(w.render()) for w in app.query(UserMessage)].count(MESSAGE) == 1
        items = await app.birdie.transcript()
        assert items[-1].role == "assistant" and "finale" in items[-1].content
        assert "interrupted" not in items[-1].content


async def test_two_sessions_run_turns_at_once(any_app, monkeypatch):
    """A message sent in a new session while the first session's turn runs: both turns run to
    their end; starting the second one does not cancel the first (it is not `[interrupted]`)."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        first = await start_slow_turn(pilot, app, monkeypatch, "40")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: shown_session(app) != first)
        await send(pilot, app, "hello second")
        second = shown_session(app)
        await wait_turn(pilot, app)
        assert "interrupted" not in last_reply(app)
        await wait_for(pilot, lambda: row_of(app, first).turns == 1
                       and row_of(app, first).input_tokens > 0, timeout=20)
        await send(pilot, app, f"/session switch {first}")
        await wait_for(pilot, lambda: shown_session(app) == first)
        await wait_for(pilot, lambda: "finale" in last_reply(app))
        await wait_turn(pilot, app)
        assert "interrupted" not in last_reply(app)
        items = await app.birdie.transcript()
        assert items[-1].role == "assistant" and "finale" in items[-1].content
        assert "interrupted" not in items[-1].content
        assert second != first


async def test_switching_back_mid_turn_shows_the_live_stream(any_app, monkeypatch):
    """Back before the turn ended: the reply so far, then the rest streaming in the chat."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        first = await start_slow_turn(pilot, app, monkeypatch, "20")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: shown_session(app) != first)
        await send(pilot, app, f"/session switch {first}")
        await wait_for(pilot, lambda: shown_session(app) == first)
        assert app.main.turn_running  # the turn is the screen's again
        await wait_turn(pilot, app)
        reply = last_reply(app)
        assert "finale" in reply and "w0" in reply and "interrupted" not in reply
        assert len(list(app.query(AssistantMessage))) == 1
        assert [str(w.render()) for w in app.query(UserMessage)].count(MESSAGE) == 1


async def test_the_browser_and_the_status_bar_show_a_busy_session(any_app, monkeypatch):
    """A session whose turn runs unseen is marked in the browser and counted in the status
    bar; the mark goes when the turn ends."""
    app = any_app()
    async with app.run_test(size=(150, 40)) as pilot:
        first = await start_slow_turn(pilot, app, monkeypatch, "15")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: shown_session(app) != first)
        status = app.query_one("#status")
        await wait_for(pilot, lambda: status.others == "1 other running")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
        browser = app.screen
        await wait_for(pilot, lambda: browser.row(first) is not None)
        assert browser.row(first).busy == "running"
        assert "⟳ running" in str(browser.session_list.get_option(first).prompt)
        await pilot.press("escape")
        await wait_for(pilot, lambda: status.others == "", timeout=20)


async def test_quitting_with_a_running_turn_asks_once(any_app, monkeypatch):
    """ctrl+q with a turn running opens a confirm dialog: Stay keeps the app and the turn;
    ctrl+q again (or Quit) leaves."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start_slow_turn(pilot, app, monkeypatch, "10")
        await pilot.press("ctrl+n")  # the running turn is now in the background
        await wait_for(pilot, lambda: not app.main.turn_running)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "1 running turn" in app.screen.message
        await pilot.press("enter")  # the safe button: stay
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.is_running
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running)


@pytest.mark.integration  # a real --print process beside the app
async def test_a_turn_from_another_process_shows_without_reopening(make_app, isolated_home,
                                                                   skills_dir):
    """A real `birdie-tui --print --session-id X` adds a turn while the app shows X: the chat
    shows it without reopening, and the status bar says X is open elsewhere."""
    app = make_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "first from the app")
        await wait_turn(pilot, app)
        sid = shown_session(app)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "birdie_tui.cli", "--session-id", sid, "--skills-dir",
            str(skills_dir), "--print", "hello from elsewhere", env=clean_env(isolated_home),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()
        users = lambda: [str(w.render()) for w in app.query(UserMessage)]  # noqa: E731
        await wait_for(pilot, lambda: "hello from elsewhere" in users(), timeout=20)
        assert users() == ["first from the app", "hello from elsewhere"]
        assert shown_session(app) == sid
        status = app.query_one("#status")
        await wait_for(pilot, lambda: "open elsewhere: process" in status.others)
        assert row_of(app, sid).turns == 2  # the figures follow the file


async def test_a_background_turn_waits_for_its_approval_until_shown(any_app, monkeypatch,
                                                                    tmp_path):
    """A turn left behind reaches a call that needs approval: no dialog opens over the other
    session, the status bar says one session awaits approval; switching back asks, and the
    answer runs the call."""
    from birdie_tui.tui.screens.approval import ApprovalScreen

    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "0.5")  # the tool call comes 2 s after the switch
    made = tmp_path / "made"
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, f'call touch_file {{"path": "{made}"}}')
        await wait_for(pilot, lambda: app.main.turn_running)
        first = shown_session(app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: shown_session(app) != first)
        status = app.query_one("#status")
        await wait_for(pilot, lambda: status.others == "1 awaiting approval", timeout=20)
        assert not isinstance(app.screen, ApprovalScreen) and not made.exists()
        await send(pilot, app, f"/session switch {first}")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=20)
        await pilot.pause(ApprovalScreen.ARM_SECONDS + 0.1)
        await pilot.press("y")
        await wait_for(pilot, made.exists, timeout=20)
        assert app.main.turn_running and status.others == ""  # its reply streams on screen


async def test_a_turn_from_another_process_shows_on_the_fake_door(skills_dir):
    """The fake door's twin of the `--print` test above: a turn another process adds to the
    shown session is shown without reopening, and the status bar says who has it open."""
    from birdie_tui.tui import create_app
    from tests.tui.fake_door import FakeDoor

    door = FakeDoor()
    app = create_app(["--skills-dir", str(skills_dir)], cursor_blink=False,
                     door_factory=FakeDoor.factory(door))
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "first from the app")
        await wait_turn(pilot, app)
        sid = shown_session(app)
        door.add_turn_elsewhere(sid, "hello from elsewhere", "an answer", who="process 4242")
        users = lambda: [str(w.render()) for w in app.query(UserMessage)]  # noqa: E731
        await wait_for(pilot, lambda: "hello from elsewhere" in users(), timeout=20)
        assert users() == ["first from the app", "hello from elsewhere"]
        assert shown_session(app) == sid
        status = app.query_one("#status")
        await wait_for(pilot, lambda: "open elsewhere: process 4242" in status.others)
        assert row_of(app, sid).turns == 2
