"""The welcome notice names the keys the user actually has: a keymap in settings.json moves
Enter, ctrl+j, ctrl+s and ctrl+p, and the welcome follows it. The keymap test reads
settings.json from disk (local door only); the default keys are shown over both doors."""

from __future__ import annotations

import json

import pytest

from birdie_tui.tui.widgets.chat.chat_log import ChatLog

from .conftest import wait_for, wait_ready


def welcome_source(app) -> str:
    """The Markdown of the welcome notice in the chat."""
    notices = [w for w in app.query_one(ChatLog).children if w.has_class("notice")]
    return next(n.source for n in notices if "Type a message" in n.source)


@pytest.mark.app
async def test_welcome_names_the_remapped_keys(make_app, isolated_home):
    """With send, newline, sessions and palette remapped, the welcome names the new keys and
    none of the defaults it used to hard-code."""
    (isolated_home / "settings.json").write_text(json.dumps({"keymap": {
        "composer.submit": "ctrl+g", "composer.newline": "ctrl+l,f6",
        "app.sessions": "f2", "app.palette": "f3"}}))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await wait_for(pilot, lambda: any("Type a message" in getattr(n, "source", "")
                                          for n in app.query(".notice")))
        text = welcome_source(app)
        assert "press **ctrl+g**" in text
        assert "(ctrl+l for a new line)" in text
        assert "**f2** browses sessions" in text and "**f3** opens the palette" in text
        for default in ("Enter", "ctrl+j", "ctrl+s", "ctrl+p"):
            assert default not in text


@pytest.mark.app
async def test_welcome_names_the_default_keys_without_a_keymap(any_app):
    """No keymap: the welcome names Enter, ctrl+j, ctrl+s and ctrl+p as before."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        text = welcome_source(app)
        assert "press **Enter** (ctrl+j for a new line)" in text
        assert "**ctrl+s** browses sessions" in text and "**ctrl+p** opens the palette" in text


def test_a_key_with_markdown_characters_is_shown_literally():
    """A key name from settings.json is escaped, never read as Markdown emphasis or links."""
    from birdie_tui.tui.sessions import welcome_keys

    class App:
        """Only what the welcome asks of the app: the key each binding has now."""

        def key_for(self, binding_id: str) -> str:
            return {"app.sessions": "*", "app.palette": "[x](y)"}.get(binding_id, "ctrl+j")

    keys = welcome_keys(App())
    assert keys["app.sessions"] == "\\*"
    assert keys["app.palette"] == "\\[x\\](y)"
    assert keys["composer.newline"] == "ctrl+j"
