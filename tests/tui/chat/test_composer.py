"""The composer: sending, newlines, history, /command completion and hints."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button

from birdie_tui.tui.widgets.composer import Composer
from tests.tui.chat.harness import ChatHarness

COMMANDS = ["/help", "/skill enable", "/skill disable", "/skills", "/sessions", "/tool output"]


async def test_enter_submits_stripped_text_and_clears():
    """Enter posts Submitted with the stripped text, naming the composer, and clears it."""
    app = ChatHarness()
    seen = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await pilot.press(*"  hi there ")
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == ["hi there"]
        assert app.composer.text == ""
        message = next(m for m in seen if isinstance(m, Composer.Submitted))
        assert message.composer is app.composer and message.control is app.composer


async def test_enter_on_blank_text_does_nothing():
    """Enter on whitespace-only text sends nothing and leaves the text as it was."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("space", "space", "enter")
        await pilot.pause()
        assert app.submitted == []
        assert app.composer.text == "  "


async def test_typing_works_right_away_and_ctrl_j_adds_a_line():
    """Keys work at once; Ctrl+J and Shift+Enter add lines, growing the box; Enter sends all."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        assert app.composer.text == "a\nb\nc"
        await pilot.pause()
        assert app.composer.region.height == 5  # grows: 3 lines + border
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == ["a\nb\nc"]


async def test_height_grows_up_to_a_limit():
    """The composer grows with its lines from 3 rows up to a cap of 10."""
    app = ChatHarness()
    async with app.run_test(size=(80, 40)) as pilot:
        assert app.composer.region.height == 3
        for _ in range(20):
            await pilot.press("x", "ctrl+j")
        await pilot.pause()
        assert app.composer.region.height == 10


async def test_history_walks_back_and_restores_the_draft():
    """Up walks back through sent messages, stopping at the oldest; Down returns to the draft."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.composer
        composer.set_history(["first", "second\nsecond-b"])
        for text in ["third"]:
            await pilot.press(*text, "enter")
        assert composer.input_history == ["first", "second\nsecond-b", "third"]
        await pilot.press(*"draft")
        await pilot.press("up")
        assert composer.text == "third"
        await pilot.press("up")
        assert composer.text == "second\nsecond-b"
        assert composer.cursor_location == (0, len("second"))  # ↑ again keeps walking
        await pilot.press("up")
        assert composer.text == "first"
        await pilot.press("up")  # oldest: stays
        assert composer.text == "first"
        await pilot.press("down", "down")
        assert composer.text == "third"
        await pilot.press("down")
        assert composer.text == "draft"
        await pilot.press("down")  # not browsing: ordinary cursor movement
        assert composer.text == "draft"


async def test_up_inside_a_multiline_message_moves_the_cursor():
    """Up in a multi-line draft moves the cursor first; only from the top line does it recall."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        app.composer.add_history("old")
        await pilot.press("a", "ctrl+j", "b")
        await pilot.press("up")
        assert app.composer.text == "a\nb" and app.composer.cursor_location[0] == 0
        await pilot.press("up")
        assert app.composer.text == "old"


async def test_repeated_history_entries_are_kept_once():
    """History skips empty entries and an immediate repeat of the last one."""
    composer = Composer()
    composer.add_history("same")
    composer.add_history("same")
    composer.add_history("")
    assert composer.input_history == ["same"]


async def test_tab_completes_common_prefix_then_cycles():
    """Tab completes a /command to the common prefix, then cycles the matches, keeping focus."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.composer
        composer.set_commands(COMMANDS)
        await pilot.press("/", "s", "k")
        await pilot.press("tab")
        assert composer.text == "/skill"
        assert composer.cursor_location == (0, len("/skill"))
        seen = []
        for _ in range(4):
            await pilot.press("tab")
            seen.append(composer.text)
        assert seen == ["/skill disable", "/skill enable", "/skills", "/skill disable"]
        assert app.focused is composer


async def test_tab_with_one_match_completes_it():
    """Tab completes the only matching command; another Tab changes nothing and keeps focus."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        app.composer.set_commands(COMMANDS)
        await pilot.press("/", "h", "tab")
        assert app.composer.text == "/help"
        await pilot.press("tab")  # nothing more to complete: focus stays put
        assert app.composer.text == "/help" and app.focused is app.composer


async def test_typing_after_completion_starts_over():
    """Editing after a completion starts a new completion from the edited text."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        app.composer.set_commands(COMMANDS)
        await pilot.press("/", "s", "tab")  # nothing common to add: the cycle starts at once
        assert app.composer.text == "/sessions"
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace",
                          "backspace", "k", "tab")
        assert app.composer.text == "/skill"


class WithButton(App):
    def compose(self) -> ComposeResult:
        yield Composer(id="composer", cursor_blink=False)
        yield Button("ok")


async def test_tab_in_an_empty_composer_moves_focus():
    """Tab still walks the focus chain when nothing is being written."""
    app = WithButton()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(Composer)
        composer.focus()
        composer.set_commands(COMMANDS)
        await pilot.press("tab")
        assert isinstance(app.focused, Button)


async def test_tab_mid_message_keeps_the_keyboard():
    """A stray Tab in a half-written message must not send the next keys (or Enter) elsewhere."""
    app = WithButton()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(Composer)
        composer.focus()
        composer.set_commands(COMMANDS)
        await pilot.press("h", "i", "tab", "!")
        assert app.focused is composer
        assert composer.text == "hi!"


async def test_hint_lists_matching_commands():
    """The hint lists matching commands, capped with '+N more', and is posted only on change."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        app.composer.set_commands(COMMANDS + [f"/x{i}" for i in range(10)])
        await pilot.press("/", "s")
        await pilot.pause()
        assert app.hints[-1] == "/sessions  /skill disable  /skill enable  /skills"
        assert app.composer.current_hint == app.hints[-1]
        await pilot.press("k", "tab", "tab")  # cycling keeps the whole list visible
        await pilot.pause()
        assert app.hints[-1] == "/skill disable  /skill enable  /skills"
        app.composer.clear()
        await pilot.press("/", "x")
        await pilot.pause()
        assert app.hints[-1].endswith("… +4 more") and app.hints[-1].count("/x") == 6
        app.composer.clear()
        await pilot.pause()
        assert app.hints[-1] == ""
        count = len(app.hints)
        await pilot.press("h", "i")
        await pilot.pause()
        assert len(app.hints) == count  # only posted when the set changes


async def test_enter_in_the_same_burst_as_the_text_sends_it():
    """A terminal delivers fast typing or a paste plus Enter in one read: the keys are posted
    together. Enter must act after the characters before it, never before them."""
    from textual import events

    app = ChatHarness()
    async with app.run_test() as pilot:
        for ch in "burst text":
            app.post_message(events.Key(ch if ch != " " else "space", ch))
        app.post_message(events.Key("enter", "\r"))
        for ch in "next":
            app.post_message(events.Key(ch, ch))
        await pilot.pause(0.2)
        assert app.submitted == ["burst text"]
        assert app.composer.text == "next"


async def test_a_big_paste_with_cr_or_crlf_line_endings_counts_its_lines():
    """A big paste with CR (or CRLF) line endings, as many terminals send it, is held as
    that many lines and sent with LF only, like a small paste; a CR-only paste of 300 short
    lines is folded too (it is 300 lines, not one)."""
    from textual import events

    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        lines = [f"line {n:04} of a pasted log file" for n in range(600)]
        for ending in ("\r", "\r\n"):
            app.composer.clear()
            app.composer.post_message(events.Paste(ending.join(lines)))
            await pilot.pause()
            assert app.composer.text.startswith("[Pasted text #") and " 600 lines" in app.composer.text
            sent = app.composer.full_text
            assert "\r" not in sent and sent.split("\n") == lines
        app.composer.clear()
        app.composer.post_message(events.Paste("\r".join(f"l{n}" for n in range(300))))
        await pilot.pause()
        assert " 300 lines" in app.composer.text and "\r" not in app.composer.full_text
