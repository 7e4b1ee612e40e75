"""Sessions in the real app: browser, cycling, new, delete, palette, themes. Tests taking
`any_app` run over the local door and the fake one. Local only: the tests that start from
session files written on disk, the theme files and settings.json, and the cancel/retry test
that checks the session file's token log."""

from __future__ import annotations

import json

import pytest

from birdie_tui.tui.screens.session_browser import SessionBrowser
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage

from .conftest import (enabled, send, session_id, turns, wait_for, wait_ready, wait_turn,
                       write_session)


def user_texts(app):
    return [str(w.render()) for w in app.query(UserMessage)]


@pytest.mark.smoke
async def test_browser_switches_and_replays_history(any_app, isolated_home):
    """Opening an older session from the browser switches to it and replays its history."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        first = session_id(app)
        await send(pilot, app, 'call echo_text {"text": "from the first"}')
        await wait_turn(pilot, app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: session_id(app) != first)
        second = session_id(app)
        await send(pilot, app, "second session here")
        await wait_turn(pilot, app)
        assert not any("from the first" in t for t in user_texts(app))

        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
        for ch in first[-3:]:  # type to filter down to the first session
            await pilot.press(ch)
        await pilot.press("enter")
        await wait_for(pilot, lambda: session_id(app) == first)
        await wait_for(pilot, lambda: any("from the first" in t for t in user_texts(app)))
        block = app.query_one(ToolBlock)  # the tool call is replayed as a block
        assert block.name == "echo_text" and block.content == "from the first"
        assert app.query_one("#status") and first in str(app.query_one("#status").render())
        assert second != first


@pytest.mark.app
async def test_new_session_and_back_by_keyboard(any_app):
    """ctrl+n opens an empty session; ctrl+pagedown goes back to the one with the turn, whose
    chat is shown again."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "first words")
        await wait_turn(pilot, app)
        first = session_id(app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: session_id(app) != first)
        await wait_for(pilot, lambda: not user_texts(app))
        await pilot.press("ctrl+pagedown")
        await wait_for(pilot, lambda: session_id(app) == first)
        await wait_for(pilot, lambda: any("first words" in t for t in user_texts(app)))


@pytest.mark.app
async def test_ctrl_pagedown_cycles_sessions(make_app, isolated_home):
    """Ctrl+PageDown steps to older sessions, wrapping round; Ctrl+PageUp steps the other way."""
    for n, title in ((1, "oldest"), (2, "middle"), (3, "newest")):
        write_session(isolated_home, f"2026-01-02_{n}", title=title)
    app = make_app("--session-id", "2026-01-02_3")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        seen = [session_id(app)]
        for _ in range(3):
            await pilot.press("ctrl+pagedown")
            await wait_for(pilot, lambda: session_id(app) != seen[-1])
            seen.append(session_id(app))
        assert seen == ["2026-01-02_3", "2026-01-02_2", "2026-01-02_1", "2026-01-02_3"]
        await pilot.press("ctrl+pageup")
        await wait_for(pilot, lambda: session_id(app) == "2026-01-02_1")


@pytest.mark.app
async def test_grants_restored_when_switching(make_app, isolated_home):
    """Switching sessions restores that session's skill grants, in the engine and the sidebar."""
    write_session(isolated_home, "2026-01-02_1", enabled=["Quiet"], disabled=["Echoer"], turns=1)
    write_session(isolated_home, "2026-01-02_2", turns=1)
    app = make_app("--session-id", "2026-01-02_2")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert enabled(app, "Echoer") and not enabled(app, "Quiet")
        await pilot.press("ctrl+pagedown")
        await wait_for(pilot, lambda: session_id(app) == "2026-01-02_1")
        assert not enabled(app, "Echoer") and enabled(app, "Quiet")
        rows = {r.name: r.enabled for r in app.query_one("#skills").rows}
        assert rows["Quiet"] and not rows["Echoer"]


@pytest.mark.app
async def test_delete_current_session_from_browser(any_app, isolated_home):
    """Deleting the current session from the browser, once confirmed, empties chat and history."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "remember me")
        await wait_turn(pilot, app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("tab", "enter")  # Keep is the default: Delete takes a deliberate move
        await wait_for(pilot, lambda: turns(app) == 0)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionBrowser))
        assert not list(app.query(AssistantMessage))
        # The id may be reused, never the history: the open session's transcript is empty.
        assert await app.birdie.transcript() == [] and turns(app) == 0


@pytest.mark.app
async def test_palette_toggles_skill_and_switches_session(make_app, isolated_home):
    """The command palette toggles a skill and switches to a session found by its title."""
    write_session(isolated_home, "2026-01-02_1", title="palette target")
    write_session(isolated_home, "2026-01-02_2")
    app = make_app("--session-id", "2026-01-02_2")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        for ch in "toggle skill quiet":
            await pilot.press(ch if ch != " " else "space")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: enabled(app, "Quiet"))
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        for ch in "palette target":
            await pilot.press(ch if ch != " " else "space")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: session_id(app) == "2026-01-02_1")


@pytest.mark.app
async def test_theme_command_persists_and_flag_wins(make_app, isolated_home):
    """The /theme command applies and saves a theme for the next start; --theme overrides it."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert app.theme == "birdie-dark"
        await send(pilot, app, "/theme birdie-light")
        await wait_for(pilot, lambda: app.theme == "birdie-light")
        await wait_for(pilot, lambda: (isolated_home / "settings.json").exists())
    assert json.loads((isolated_home / "settings.json").read_text())["theme"] == "birdie-light"
    again = make_app()
    assert again.theme == "birdie-light"  # saved choice used at start
    assert make_app("--theme", "nord").theme == "nord"  # the flag wins over the saved one


@pytest.mark.app
async def test_broken_theme_file_falls_back_with_notification(make_app, isolated_home):
    """A theme file with a bad colour falls back to the default theme and says so."""
    themes = isolated_home / "themes"
    themes.mkdir()
    (themes / "oops.toml").write_text('name = "oops"\nprimary = "not-a-colour"\n')
    app = make_app("--theme", "oops")
    assert app.theme == "birdie-dark"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        texts = [n.message for n in app._notifications]
        assert any("oops" in t for t in texts)


@pytest.mark.app
async def test_switching_back_restores_the_context_figure(any_app):
    """The status bar's context figure resets in a new session and returns on switching back."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        first = session_id(app)
        await send(pilot, app, 'call echo_text {"text": "context"}')
        await wait_turn(pilot, app)
        status = app.query_one("#status")
        context = status.context_tokens
        assert context > 0 and len(app.birdie.ledger().calls) == 2  # the tool call, then the answer
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: session_id(app) != first)
        assert status.context_tokens == 0
        await pilot.press("ctrl+pagedown")
        await wait_for(pilot, lambda: session_id(app) == first)
        await wait_for(pilot, lambda: status.context_tokens == context)


@pytest.mark.app
async def test_cancel_keeps_finished_calls_and_retry_never_counts_twice(make_app, monkeypatch,
                                                                          isolated_home):
    """Esc after a tool round keeps that call's tokens; two /retry runs leave one turn. The
    status bar, the token panel, the session file and `sessions list` all agree."""
    from birdie_tui.tui.messages import EngineEvent

    def seen_type(kind: str) -> int:
        return sum(isinstance(x, EngineEvent) and x.type == kind for x in seen)

    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "4")  # the answer after the tool streams slowly
    app = make_app()
    seen = []
    async with app.run_test(size=(150, 40), message_hook=seen.append) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, 'call echo_text {"text": "' + "long " * 40 + '"}')
        # the tool ran (the first model call is done and billed); the answer is under way
        await wait_for(pilot, lambda: seen_type("tool_result") == 1)
        assert app.main.turn_running
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.main.turn_running)
        ledger = app.birdie.ledger()
        assert turns(app) == 1 and ledger.session_in > 0
        spent_in = ledger.session_in
        status = app.query_one("#status")
        await wait_for(pilot, lambda: status.session_in == spent_in)

        # The answers to /retry at full speed: the same model, unpaced (a door call).
        monkeypatch.delenv("BIRDIE_OFFLINE_TPS")
        await app.birdie.switch_model("offline")
        for attempt in (1, 2):
            await send(pilot, app, "/retry")
            await wait_for(pilot, lambda: seen_type("done") == attempt)
            await wait_turn(pilot, app)
        sid = session_id(app)
        meta = json.loads((isolated_home / "sessions" / "tester" / f"{sid}.json").read_text())
        assert meta["turns"] == 1 and len(meta["token_log"]) == 1
        assert meta["input_tokens"] > spent_in  # the retries' calls are billed too
        assert meta["token_log"][0]["input"] == meta["input_tokens"]
        assert app.birdie.ledger().session_in == meta["input_tokens"]
        panel = app.query_one("#tokens")
        await wait_for(pilot, lambda: panel.view.per_turn == (meta["input_tokens"]
                                                               + meta["output_tokens"],))
        assert status.session_in == meta["input_tokens"]
        row = next(r for r in app.birdie.session_rows() if r.id == sid)  # `sessions list`
        assert (row.turns, row.input_tokens) == (1, meta["input_tokens"])
