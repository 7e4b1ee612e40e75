"""Rewind and fork from the keyboard, over both doors: `/rewind N` and `/fork N` typed as a
user would, and the picker Esc Esc opens in an empty composer (Enter rewinds, f forks, Esc
closes); the chat and the status bar show the shorter history, the message comes back to the
composer, and Esc during a turn still cancels it."""

from __future__ import annotations

import pytest

from birdie_tui.tui.screens.rewind_picker import RewindPicker
from birdie_tui.tui.widgets.chat.user_message import UserMessage

from .conftest import row_of, send, turns, wait_for, wait_ready, wait_turn
from .conftest import session_id as shown_session

pytestmark = pytest.mark.app  # the whole app under Pilot (CONTRIBUTING.md, Test tiers)

MESSAGES = ("first question", "second question", "third question")


def users(app) -> list[str]:
    return [str(w.render()) for w in app.query(UserMessage)]


def composer_text(app) -> str:
    return app.query_one("#composer").text


async def three_turns(pilot, app) -> str:
    await wait_ready(pilot, app)
    for text in MESSAGES:
        await send(pilot, app, text)
        await wait_turn(pilot, app)
    assert users(app) == list(MESSAGES)
    return shown_session(app)


async def test_rewind_n_puts_the_message_back_and_shows_the_shorter_history(any_app):
    """`/rewind 2` typed: the chat shows turn 1 only, the composer holds message 2, the counts
    follow; sent again it is message 2."""
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        sid = await three_turns(pilot, app)
        await send(pilot, app, "/rewind 2")
        await wait_for(pilot, lambda: composer_text(app) == "second question")
        await wait_for(pilot, lambda: users(app) == ["first question"])
        assert shown_session(app) == sid and turns(app) == 1
        assert row_of(app, sid).turns == 1
        assert [t.text for t in await app.birdie.history(10)] == ["first question"]
        # Edited and sent again, it is message 2 once more.
        await send(pilot, app, "second, asked better")
        await wait_turn(pilot, app)
        assert users(app) == ["first question", "second, asked better"]


async def test_fork_n_opens_a_copy_and_leaves_the_original(any_app):
    """`/fork 3` opens a fork with turns 1-2 and message 3 in the composer; the original keeps its
    3 turns; `/fork 1` is empty."""
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        sid = await three_turns(pilot, app)
        await send(pilot, app, "/fork 3")
        await wait_for(pilot, lambda: shown_session(app) != sid)
        await wait_for(pilot, lambda: users(app) == ["first question", "second question"])
        await wait_for(pilot, lambda: composer_text(app) == "third question")
        fork = shown_session(app)
        assert app.birdie.status().title.startswith("fork of ")
        assert turns(app) == 2 and row_of(app, sid).turns == 3
        await send(pilot, app, "/fork 1")  # from the first: an empty conversation
        await wait_for(pilot, lambda: shown_session(app) not in (sid, fork))
        await wait_for(pilot, lambda: users(app) == [])
        assert composer_text(app) == "first question"


async def test_bad_numbers_are_said_in_one_line(any_app):
    """A number past the last message is said in the chat; a word is a usage hint; nothing
    changes."""
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await three_turns(pilot, app)
        await send(pilot, app, "/rewind 9")
        await wait_for(pilot, lambda: "messages 1 to 3" in str(app.main.chat.children[-1].render()))
        await send(pilot, app, "/fork two")
        await pilot.pause()
        assert users(app) == list(MESSAGES) and turns(app) == 3


async def test_esc_esc_opens_the_picker_enter_rewinds(any_app):
    """Esc Esc in an empty composer opens the picker, newest first; ↓ Enter rewinds to before
    message 2."""
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        sid = await three_turns(pilot, app)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
        picker = app.screen
        assert picker.highlighted() == 3  # newest first
        await pilot.press("down", "enter")  # message 2
        await wait_for(pilot, lambda: users(app) == ["first question"])
        assert composer_text(app) == "second question" and shown_session(app) == sid


async def test_the_picker_forks_with_f_and_closes_with_esc(any_app):
    """Esc closes the picker; two Esc far apart open nothing; f forks from the highlighted
    message."""
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        sid = await three_turns(pilot, app)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindPicker))
        assert users(app) == list(MESSAGES)
        await pilot.pause(0.7)  # two presses far apart are two single Esc
        await pilot.press("escape")
        await pilot.pause(0.7)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindPicker)
        await pilot.pause(0.7)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
        await pilot.press("down", "down", "f")  # message 1
        await wait_for(pilot, lambda: shown_session(app) != sid)
        await wait_for(pilot, lambda: composer_text(app) == "first question")
        assert users(app) == [] and row_of(app, sid).turns == 3


async def test_esc_esc_with_text_in_the_composer_opens_nothing(any_app):
    """With text in the composer, Esc Esc opens no picker and keeps the text."""
    app = any_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await three_turns(pilot, app)
        app.query_one("#composer").load_text("half typed")
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindPicker)
        assert composer_text(app) == "half typed"


async def test_the_palette_and_help_name_rewind_and_fork():
    """The palette has the two entries; /help lists /rewind and the Esc Esc key."""
    from birdie_tui.tui.cmds import help_markdown, palette_entries

    entries = palette_entries(started=True)
    assert ("Rewind to a message…", "/rewind") in entries
    assert ("Fork from a message…", "/fork") in entries
    assert "`/rewind [N]`" in help_markdown() and "Esc Esc" in help_markdown()
