"""ctrl+f finds text in the conversation (replies, tool output, entries folded far up) and
jumps between the matches; ctrl+r picks an earlier input of any session into the composer.
Over both doors, typed and pressed as a user would."""

from __future__ import annotations

import pytest

from birdie_tui.tui.screens.input_history import InputHistoryScreen
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.folding import FoldedSpace
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.search_bar import HIT_CLASS, SearchBar
from tests.tui.chat.test_folding import chat_turns

from .conftest import send, session_id, wait_for, wait_ready, wait_turn


def in_view(chat: ChatLog, entry) -> bool:
    """Some of `entry` is inside the chat's visible rows."""
    top, height = entry.virtual_region.y, entry.virtual_region.height
    return height > 0 and top < chat.scroll_y + chat.scrollable_content_region.height \
        and top + height > chat.scroll_y


@pytest.mark.app
async def test_ctrl_f_finds_a_reply_and_a_tool_output_counts_and_wraps(any_app):
    """Typing finds every occurrence ("N of M", the newest first); Enter / ↓ go down and wrap
    to the first, shift+Enter / ↑ go up and wrap to the last; the current match's entry is
    marked and in view (a collapsed tool block opened); Esc closes and the composer has the
    keyboard again."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "tell me about the Zebrafish")
        await wait_turn(pilot, app)
        await send(pilot, app, "!echo zebrafish in a tool")
        await wait_for(pilot, lambda: app.query(ToolBlock) and app.query(ToolBlock)[-1].finished)
        block = app.query(ToolBlock)[-1]
        assert block.collapsed
        await pilot.press("ctrl+f")
        bar = app.query_one(SearchBar)
        assert bar.is_open and app.focused.id == "search-input"
        await pilot.press(*"ZEBRAFISH")
        # the user message, its echo in the reply, the tool's argument and its output
        await wait_for(pilot, lambda: bar.count_text == "4 of 4")
        assert bar.current is block and block.has_class(HIT_CLASS) and not block.collapsed
        await pilot.press("enter")
        assert bar.count_text == "1 of 4" and isinstance(bar.current, UserMessage)
        assert not block.has_class(HIT_CLASS) and bar.current.has_class(HIT_CLASS)
        await pilot.press("down")
        assert bar.count_text == "2 of 4" and isinstance(bar.current, AssistantMessage)
        await pilot.press("up", "up")
        assert bar.count_text == "4 of 4" and bar.current is block
        await pilot.press("shift+enter")
        assert bar.count_text == "3 of 4"
        await pilot.press("backspace", *"x")
        assert bar.count_text == "no matches" and bar.current is None
        await pilot.press("escape")
        assert not bar.is_open and isinstance(app.focused, Composer)
        assert not app.query(f".{HIT_CLASS}")
        await pilot.press(*"hi")
        assert app.query_one(Composer).text == "hi"  # the keys are the composer's again


@pytest.mark.app
async def test_ctrl_f_unfolds_an_old_entry_and_scrolls_to_it(any_app):
    """A match in an entry folded far up (hidden behind the blank) is shown again and
    scrolled into view."""
    app = any_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot, app)
        chat = app.query_one(ChatLog)
        await chat_turns(pilot, chat, 30)
        await wait_for(pilot, lambda: chat.query(FoldedSpace)
                       and chat.query_one(FoldedSpace).region.height > 0)
        old = next(m for m in chat.query_children(UserMessage) if m.text == "question 3")
        assert not old.display
        await pilot.press("ctrl+f", *"question 3")
        bar = app.query_one(SearchBar)
        await wait_for(pilot, lambda: bar.current is old)
        assert bar.count_text == "1 of 1"
        await wait_for(pilot, lambda: old.display and in_view(chat, old))
        assert not chat.query(FoldedSpace)
        await pilot.press("escape")
        assert isinstance(app.focused, Composer)


@pytest.mark.app
async def test_ctrl_r_lists_inputs_of_two_sessions_filters_and_fills_the_composer(any_app):
    """Inputs sent in two sessions are offered newest first; typing filters them (any
    case); Enter puts the chosen one in the composer, not sent; Esc leaves the composer as it
    was."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "first session: deploy the Falcon")
        await wait_turn(pilot, app)
        first = session_id(app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: session_id(app) != first)
        await send(pilot, app, "second session: count the ducks")
        await wait_turn(pilot, app)
        composer = app.query_one(Composer)
        composer.focus()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, InputHistoryScreen))
        picker = app.screen
        assert picker.shown[:2] == ["second session: count the ducks",
                                    "first session: deploy the Falcon"]
        await pilot.press(*"FALCON")
        assert picker.shown == ["first session: deploy the Falcon"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, InputHistoryScreen))
        assert composer.text == "first session: deploy the Falcon"
        assert app.focused is composer and not app.main.turn_running
        assert len(app.query(UserMessage)) == 1  # nothing was sent
        await pilot.press("ctrl+r", *"ducks", "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, InputHistoryScreen))
        assert composer.text == "first session: deploy the Falcon"
