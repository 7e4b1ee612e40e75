"""A failed or odd start never leaves a dead app: bad requests are said in one line and a
working session opens; a failed engine can be retried; quitting always works. Over both
doors: an unknown session id, quitting, the resume hint. Local only: what is about the home's
files (corrupt or blocked ones, settings.json, --continue over session files) and the
engine's own start."""

from __future__ import annotations

import pytest

from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.notice import ErrorBlock
from birdie_tui.tui.widgets.composer import Composer

from .conftest import (enabled, send, session_id, wait_for, wait_ready, wait_turn,
                       write_session)


def notifications(app) -> list[str]:
    return [n.message for n in app._notifications]


def errors(app) -> list[str]:
    return [str(e.render()) for e in app.query(ErrorBlock)]


@pytest.mark.app
async def test_unknown_session_id_opens_a_working_session(any_app):
    """A --session-id that does not exist: one line, then a new session that answers."""
    app = any_app("--session-id", "2020-01-01_9")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert session_id(app) != "2020-01-01_9"
        assert any("2020-01-01_9" in e and "new session" in e for e in errors(app))
        await send(pilot, app, "still here?")
        await wait_turn(pilot, app)
        assert "still here?" in app.query(AssistantMessage).last().text


@pytest.mark.app
async def test_unknown_enable_skill_is_ignored_and_the_rest_applies(make_app, isolated_home):
    """An unknown --enable skill is reported; the known ones still apply to the resumed session."""
    write_session(isolated_home, "2026-01-02_1", title="kept", turns=1)
    app = make_app("--session-id", "2026-01-02_1", "--enable", "Nope", "--enable", "Quiet")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert session_id(app) == "2026-01-02_1"
        assert enabled(app, "Quiet")
        assert any("Nope" in e for e in errors(app))


@pytest.mark.app
async def test_corrupt_session_file_is_moved_aside_and_announced(make_app, isolated_home):
    """A corrupt session file is moved aside, announced and logged; a new session opens."""
    path = write_session(isolated_home, "2026-01-02_1", turns=1)
    path.write_text("{ not json")
    app = make_app("--session-id", "2026-01-02_1")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await wait_for(pilot, lambda: any("corrupt" in n for n in notifications(app)))
        aside = list(path.parent.glob("2026-01-02_1.json.corrupt-*"))
        assert len(aside) == 1 and aside[0].read_text() == "{ not json"
        assert session_id(app) != "2026-01-02_1"
        log = (isolated_home / "logs" / "birdie-tui.log").read_text()
        assert aside[0].name in log


@pytest.mark.app
async def test_corrupt_memory_is_announced_when_found(make_app, isolated_home):
    """memory.json is read after boot too: the notice comes when it is moved aside."""
    folder = isolated_home / "sessions" / "tester"
    folder.mkdir(parents=True)
    (folder / "memory.json").write_text("[[[")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await wait_for(pilot, lambda: any("memory" in n for n in notifications(app)))
        aside = list(folder.glob("memory.json.corrupt-*"))
        assert len(aside) == 1 and aside[0].read_text() == "[[["


@pytest.fixture
def blocker(isolated_home):
    """The user's data folder is a file: the engine cannot open its history database."""
    path = isolated_home / "sessions" / "tester"
    path.parent.mkdir(parents=True)
    path.write_text("not a folder")
    return path


@pytest.mark.app
async def test_failed_engine_start_is_recoverable(make_app, blocker):
    """The engine cannot start (its data folder is blocked): the app says so, keeps what the
    user types, and ctrl+n tries again once the cause is gone."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.booting.failed)
        assert any("could not start" in e for e in errors(app))
        await send(pilot, app, "are you there")
        assert app.main.pending == ["are you there"]
        await send(pilot, app, "/info")  # needs the engine: says so, never waits forever
        await wait_for(pilot, lambda: any("needs Birdie running" in n
                                          for n in notifications(app)))
        await pilot.press("ctrl+s")  # keys still answer, and say what to do
        await wait_for(pilot, lambda: any("not running" in n for n in notifications(app)))
        blocker.unlink()
        await pilot.press("ctrl+n")
        await wait_ready(pilot, app)
        await wait_turn(pilot, app)
        await wait_for(pilot, lambda: len(app.query(AssistantMessage)) == 1)
        assert "are you there" in app.query(AssistantMessage).last().text


@pytest.mark.app
async def test_quit_works_after_a_failed_start(make_app, blocker):
    """Ctrl+Q still quits cleanly when the engine failed to start."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.booting.failed)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app._exit)
    assert app.return_code in (0, None)


@pytest.mark.app
async def test_quitting_without_sending_leaves_no_session(any_app, isolated_home):
    """Quitting with only unsent text leaves no session file and no resume hint."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.press("h", "i")  # typed, never sent
        assert app.query_one(Composer).text == "hi"
        await pilot.press("ctrl+q")
    folder = isolated_home / "sessions" / "tester"
    assert not list(folder.glob("*.json")) if folder.exists() else True
    assert app.resume_hint is None


@pytest.mark.smoke
async def test_resume_hint_names_the_session_after_a_turn(any_app):
    """After a turn, the resume hint printed on quit names the session's --session-id."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello")
        await wait_turn(pilot, app)
        sid = session_id(app)
        await pilot.press("ctrl+q")
    assert app.resume_hint is not None and f"--session-id {sid}" in app.resume_hint


@pytest.mark.app
async def test_continue_opens_the_most_recent_session(make_app, isolated_home):
    """The --continue flag opens the most recently updated session."""
    write_session(isolated_home, "2026-01-02_1", title="older", turns=2)
    write_session(isolated_home, "2026-01-03_1", title="newest", turns=1,
                  stamp="2026-01-03T09:30:00+00:00")
    app = make_app("--continue")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert session_id(app) == "2026-01-03_1"


@pytest.mark.app
async def test_corrupt_settings_are_announced_once_and_kept_aside(make_app, isolated_home):
    """A corrupt settings.json is announced exactly once and moved aside unchanged."""
    (isolated_home / "settings.json").write_text('{"theme": ')
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await wait_for(pilot, lambda: any("settings" in n for n in notifications(app)))
        await pilot.pause(0.2)
        assert sum("settings" in n for n in notifications(app)) == 1
        aside = list(isolated_home.glob("settings.json.corrupt-*"))
        assert len(aside) == 1 and aside[0].read_text() == '{"theme": '


@pytest.mark.app
async def test_a_theme_from_textuals_own_picker_is_saved(make_app, isolated_home):
    """Any way of choosing a theme saves it, not only /theme."""
    import json

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        app.theme = "birdie-light"  # what Textual's "Change theme" palette entry does
        await pilot.pause()
    saved = json.loads((isolated_home / "settings.json").read_text())
    assert saved["theme"] == "birdie-light"


@pytest.mark.app
async def test_continue_cannot_be_combined_with_session_id(make_app):
    """Passing --continue together with --session-id is a usage error (exit code 2)."""
    with pytest.raises(SystemExit) as exit_info:
        make_app("--continue", "--session-id", "2026-01-02_1")
    assert exit_info.value.code == 2


@pytest.mark.app
async def test_corrupt_history_database_is_moved_aside_and_the_app_works(make_app,
                                                                           isolated_home):
    """A corrupt checkpoints.db is moved aside and announced, and a fresh turn still works."""
    folder = isolated_home / "sessions" / "tester"
    folder.mkdir(parents=True)
    (folder / "checkpoints.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 3000)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await wait_for(pilot, lambda: any("checkpoints.db" in n for n in notifications(app)))
        assert list(folder.glob("checkpoints.db.corrupt-*"))
        await send(pilot, app, "fresh start")
        await wait_turn(pilot, app)
        assert "fresh start" in app.query(AssistantMessage).last().text
