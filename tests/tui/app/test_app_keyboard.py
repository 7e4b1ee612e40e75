"""The composer keeps the keyboard: clicks on panels, tabs and the chat never swallow what the
user types, the chat scrolls from the composer, and what was just sent is in view. All over
both doors but the keymap test, which reads settings.json from disk (local door only)."""

from __future__ import annotations

import pytest
from textual.widgets import Tabs

from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar
from tests.tui.keys import burst

from .conftest import enabled, send, turns, wait_for, wait_ready, wait_turn

pytestmark = pytest.mark.app


def in_view(chat: ChatLog, widget) -> bool:
    """Some of `widget` is inside the chat's visible region."""
    return widget.region.overlaps(chat.content_region) if widget.region else False


async def fill_chat(pilot, app, *, turns: int, words: int) -> ChatLog:
    """Long enough a conversation to scroll: `turns` answered messages of `words` words."""
    for i in range(turns):
        await send(pilot, app, f"message {i} " + "words " * words)
        await wait_turn(pilot, app)
    return app.query_one(ChatLog)


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[{" ": "space", "/": "slash"}.get(ch, ch) for ch in text])


async def test_click_a_tab_then_type_a_command_runs_it(any_app):
    """Clicking the Tokens tab must not take the keyboard: /help typed next runs."""
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_ready(pilot, app)
        tabs = app.query_one("#panels").query_one(Tabs)
        await pilot.click(tabs, offset=(12, 0))
        await pilot.pause()
        assert app.query_one("#panels").active == "tab-tokens"  # the click still worked
        notices_before = len(app.query(".notice"))
        await type_text(pilot, "/help")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.query(".notice")) > notices_before)
        assert app.focused is app.query_one(Composer)
        assert app.query_one(Composer).text == ""


async def test_click_the_chat_keeps_typing_in_the_composer(any_app):
    """A click in the conversation (to read) does not eat the next keys."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.click(ChatLog, offset=(10, 5))
        await type_text(pilot, "hello")
        assert app.query_one(Composer).text == "hello"
        assert app.focused is app.query_one(Composer)


async def test_printable_keys_on_a_focused_tool_block_go_to_the_composer(any_app):
    """A tool block reached with Tab gives typed letters (and the Enter after them) to the
    composer, so Enter sends the message instead of toggling the block."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, 'call echo_text {"text": "x"}')
        await wait_turn(pilot, app)
        block = app.query_one(ToolBlock)
        block.focus()
        await pilot.pause()
        collapsed = block.collapsed
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await wait_turn(pilot, app)
        assert block.collapsed == collapsed
        assert turns(app) == 2


async def test_skill_list_by_keyboard_then_back(any_app):
    """ctrl+o focuses the skill list; space toggles there; a letter goes back to the composer."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        sidebar = app.query_one(SkillSidebar)
        await pilot.press("ctrl+o")
        assert app.focused is sidebar.query_one(".skills--list")
        name = sidebar.highlighted_name
        before = enabled(app, name)
        await pilot.press("space")
        await wait_for(pilot, lambda: enabled(app, name) != before)
        await pilot.press("a")
        assert app.focused is app.query_one(Composer)
        assert app.query_one(Composer).text == "a"
        await pilot.press("ctrl+o", "escape")
        assert app.focused is app.query_one(Composer)


async def test_page_keys_scroll_the_chat_from_the_composer(any_app):
    """PageUp and PageDown scroll the chat while the composer keeps the focus."""
    app = any_app()
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_ready(pilot, app)
        chat = await fill_chat(pilot, app, turns=4, words=60)
        await wait_for(pilot, lambda: chat.max_scroll_y > 0)
        bottom = chat.scroll_y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: chat.scroll_y < bottom)
        assert app.focused is app.query_one(Composer)
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")
        await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y)


async def test_a_command_sent_after_scrolling_up_is_in_view(any_app):
    """Scroll up to read, then /info: its output is on screen without scrolling back."""
    app = any_app()
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_ready(pilot, app)
        chat = await fill_chat(pilot, app, turns=3, words=80)
        await wait_for(pilot, lambda: chat.max_scroll_y > 10)
        chat.scroll_home(animate=False)
        await pilot.pause()
        assert chat.scroll_y == 0
        await send(pilot, app, "/info")
        await wait_for(pilot, lambda: any("skill folders" in n.source
                                          for n in app.query(".notice")
                                          if hasattr(n, "source")))
        output = [n for n in app.query(".notice") if "skill folders" in n.source][-1]
        await wait_for(pilot, lambda: in_view(chat, output))


async def test_burst_with_newlines_keeps_key_order(any_app):
    """Keys in one burst (a paste without bracketed paste) land in order, ctrl+j included."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.press("a", "b", "ctrl+j", "c", "ctrl+j", "ctrl+j", "d", "e")
        assert app.query_one(Composer).text == "ab\nc\n\nde"


async def test_a_real_burst_keeps_editing_keys_in_place(any_app):
    """A burst mixing text with ctrl+j, backspace and arrows lands exactly as typed."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        composer = app.query_one(Composer)
        burst(app, *"line one", "ctrl+j", *"line two", "ctrl+j", "ctrl+j", *"line fourx",
              "backspace", "left", "left", "left", "left", *"X")
        await wait_for(pilot, lambda: composer.text.count("\n") == 3 and "X" in composer.text)
        await pilot.pause(0.2)
        assert composer.text == "line one\nline two\n\nline Xfour"


async def test_footer_fits_80_columns(any_app):
    """At 80 columns every footer key fits, none overlap, and the skill-list key is shown."""
    from textual.widgets._footer import FooterKey

    app = any_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot, app)
        keys = list(app.query(FooterKey))
        assert keys
        for key in keys:
            assert key.region.right <= 80, key
        # No two keys share cells (the palette key is docked right).
        spans = sorted((k.region.x, k.region.right) for k in keys)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        # The key that focuses the skill list is shown.
        assert any(k.action == "focus_skills" for k in keys)


async def test_panes_fold_and_chat_keeps_room(any_app):
    """Wide: both panes. Below 140 the context panel folds, below 110 the sidebar too. Forced
    open at 80 columns, the chat still has room for prose."""
    app = any_app()
    async with app.run_test(size=(150, 40)) as pilot:
        await wait_ready(pilot, app)
        sidebar, panel = app.query_one(SkillSidebar), app.query_one("#panels")
        assert sidebar.display and panel.display
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert sidebar.display and not panel.display
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not sidebar.display and not panel.display
        await pilot.press("ctrl+b", "ctrl+t")
        await pilot.pause()
        assert sidebar.display and panel.display
        assert app.query_one("#chat").size.width >= 40
        assert panel.region.right <= 80


async def test_keymap_from_settings_rebinds_keys(make_app, isolated_home):
    """settings.json keymap: binding ids get new keys (the composer's own keys too, in key
    order); an unknown id is reported."""
    import json

    from birdie_tui.tui.screens.session_browser import SessionBrowser

    (isolated_home / "settings.json").write_text(json.dumps({"keymap": {
        "app.sessions": "f2", "composer.newline": "ctrl+l", "composer.submit": "ctrl+g",
        "nope.missing": "f5"}}))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert any("nope.missing" in n.message for n in app._notifications)
        composer = app.query_one(Composer)
        burst(app, "a", "ctrl+l", "b", "enter", "c")  # Enter is no longer "send": a newline
        await wait_for(pilot, lambda: composer.text.endswith("c"))
        assert composer.text == "a\nb\nc"
        await pilot.press("ctrl+g")
        await wait_turn(pilot, app)
        assert turns(app) == 1
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, SessionBrowser)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))


async def test_ctrl_c_copies_the_chat_selection_and_otherwise_says_ctrl_q_quits(any_app):
    """With text selected in the chat, ctrl+c copies it (the composer has focus and nothing
    selected); with nothing selected it does not quit but says ctrl+q does; /help says so."""
    from textual.selection import Selection

    app = any_app()
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # what the terminal would get, via OSC 52
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "/help")
        await pilot.pause()
        notice = [w for w in app.query_one(ChatLog).children if w.has_class("notice")][-1]
        assert "ctrl+c copies it" in notice.source
        # as a mouse drag over the whole of /help's text
        app.screen.selections = {w: Selection(None, None) for w in notice.query("*")}
        assert isinstance(app.focused, Composer)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert copied and "ctrl+c copies it" in copied[-1]
        app.screen.clear_selection()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and len(copied) == 1
        assert any("ctrl+q" in str(n.message) for n in app._notifications)
