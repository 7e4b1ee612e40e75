"""An approval survives anything: the app leaving while its dialog is open, "not now", a
session switch. The session is opened again (a new app on `--session-id`, or a switch back),
the same request is asked, the answer runs the tool and the turn finishes in the chat; the
history stays valid throughout. Local door only: a pending step kept on disk across app starts."""

from __future__ import annotations

import json

import pytest

from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock

from .conftest import send, wait_for, wait_ready, wait_turn
from .test_approval_app import local_bundled_app, notices, open_dialog  # noqa: F401 - fixture


@pytest.fixture
def bundled_app(local_bundled_app):
    """The local door's app only: a new app on the same home must find the pending step."""
    return local_bundled_app

pytestmark = [pytest.mark.slow, pytest.mark.app]  # two app starts each (~5 s)

TOUCH = 'call run_bash {"command": "echo ran > out.txt"}'


def assert_valid(items) -> None:
    """Every assistant tool call is answered right after it, and the turn ended."""
    for n, item in enumerate(items):
        if item.role == "assistant" and item.tool_calls:
            answers = [i.tool_call_id for i in items[n + 1:n + 1 + len(item.tool_calls)]
                       if i.role == "tool"]
            assert answers == [call.id for call in item.tool_calls], items
    assert items[-1].role == "assistant" and not items[-1].tool_calls


async def stop_at_the_dialog(make, tmp_path, *, leave) -> tuple[str, str]:
    """Run a turn to its approval dialog, then leave as `leave` says; (session id, call id)."""
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, TOUCH)
        dialog = await open_dialog(pilot, app)
        sid, call = app.birdie.status().session_id, dialog.request.id
        await leave(pilot, app)
    assert not (tmp_path / "out.txt").exists()
    return sid, call


async def exit_app(pilot, app) -> None:
    app.exit()


async def not_now(pilot, app) -> None:
    await pilot.press("escape")
    await wait_turn(pilot, app)
    assert "run_bash is waiting for your approval" in notices(app)
    app.exit()


async def reopen_and_allow(make, tmp_path, sid: str, call: str) -> None:
    app = make("--session-id", sid)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        dialog = await open_dialog(pilot, app)
        assert dialog.request.id == call and dialog.request.name == "run_bash"
        assert dialog.request.command == "bash -c 'echo ran > out.txt'"
        assert "This session stopped at an approval" in notices(app)
        await pilot.press("y")
        await wait_turn(pilot, app)
        assert (tmp_path / "out.txt").read_text() == "ran\n"
        blocks = [(b.call_id, b.content) for b in app.query(ToolBlock)]
        assert blocks == [(call, "")]  # one block for the call, with its result
        assert await app.birdie.pending_approvals() == []
        items = await app.birdie.transcript()
        assert_valid(items)
        assert "1 tool call finished" in items[-1].content


async def test_the_app_exits_at_the_dialog_and_the_next_start_asks_again(bundled_app,
                                                                          tmp_path):
    """The app exits with the dialog open; a new app on the session asks the same call."""
    sid, call = await stop_at_the_dialog(bundled_app, tmp_path, leave=exit_app)
    await reopen_and_allow(bundled_app, tmp_path, sid, call)


async def test_not_now_keeps_it_for_the_next_start(bundled_app, tmp_path):
    """Esc (not now) ends the turn with the call pending; the next start asks it."""
    sid, call = await stop_at_the_dialog(bundled_app, tmp_path, leave=not_now)
    await reopen_and_allow(bundled_app, tmp_path, sid, call)


async def test_esc_on_the_asked_again_dialog_keeps_it_pending_too(bundled_app, tmp_path):
    """Esc on the asked-again dialog keeps it pending; /approvals ask asks it again."""
    sid, call = await stop_at_the_dialog(bundled_app, tmp_path, leave=exit_app)
    app = bundled_app("--session-id", sid)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await open_dialog(pilot, app)
        await pilot.press("escape")
        await wait_turn(pilot, app)
        assert [r.id for r in await app.birdie.pending_approvals()] == [call]
        assert "/approvals ask answers it" in notices(app)
        await send(pilot, app, "/approvals ask")  # and here it is again
        dialog = await open_dialog(pilot, app)
        assert dialog.request.id == call
        await pilot.press("y")
        await wait_turn(pilot, app)
        assert (tmp_path / "out.txt").read_text() == "ran\n"
        assert_valid(await app.birdie.transcript())


async def test_switching_sessions_at_the_dialog_leaves_it_pending(bundled_app, tmp_path):
    """A switch away (here while the dialog is open) keeps the step; switching back asks."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello")  # the other session, saved
        await wait_turn(pilot, app)
        first = app.birdie.status().session_id
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.birdie.status().session_id != first)
        await send(pilot, app, TOUCH)
        dialog = await open_dialog(pilot, app)
        second, call = app.birdie.status().session_id, dialog.request.id
        app.main.sessions.run(app.main.sessions.switch(first))
        await wait_for(pilot, lambda: app.birdie.status().session_id == first)
        await wait_turn(pilot, app)
        assert not isinstance(app.screen, ApprovalScreen)
        assert not (tmp_path / "out.txt").exists()
        await pilot.press("ctrl+pageup")  # back to the second one: asked again
        dialog = await open_dialog(pilot, app)
        assert app.birdie.status().session_id == second and dialog.request.id == call
        await pilot.press("y")
        await wait_turn(pilot, app)
        assert (tmp_path / "out.txt").read_text() == "ran\n"
        assert_valid(await app.birdie.transcript())


async def test_always_on_the_asked_again_dialog_is_saved(bundled_app, tmp_path, isolated_home):
    """An "always this command" given after a restart is saved like a live one."""
    sid, call = await stop_at_the_dialog(bundled_app, tmp_path, leave=exit_app)
    app = bundled_app("--session-id", sid)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await open_dialog(pilot, app)
        await pilot.press("c", "c")
        await wait_turn(pilot, app)
        assert (tmp_path / "out.txt").read_text() == "ran\n"
    saved = json.loads((isolated_home / "sessions" / "tester" / f"{sid}.json").read_text())
    assert saved.get("approval_rules") == ["run_bash(echo ran > out.txt)"]
