"""A 5 MB paste in the real app: it lands as a one-line marker (typing stays instant), the
whole paste reaches the model over the wire, the chat shows a bounded preview with a note,
and a message over the 10 MB limit is refused with a clear message, losing nothing."""

from __future__ import annotations

import json
import os

import pytest
from textual import events

from birdie_tui.tui import create_app
from birdie_tui.tui.widgets.chat.user_message import PREVIEW_CHARS, UserMessage, preview
from birdie_tui.tui.widgets.pastes import MESSAGE_LIMIT
from tests.agent.conftest import write_skills
from tests.providers.wire.conftest import SECRET, VENDORS
from tests.providers.wire.loopback import LoopbackServer
from tests.tui.app.conftest import wait_ready, wait_turn
from tests.tui.chat.harness import plain

pytestmark = pytest.mark.integration

SIZE = (120, 40)
LINE = "the quick brown fox jumps over the lazy dog 0123456789\n"
FIVE_MB = LINE * (5 * 1024 * 1024 // len(LINE))


@pytest.fixture
def skills_dir(tmp_path):
    return write_skills(tmp_path / "skills")


@pytest.fixture
def make_app(skills_dir):
    return lambda: create_app(["--skills-dir", str(skills_dir)], cursor_blink=False)


def wire_app(skills_dir, server: LoopbackServer):
    """The real app on OpenAI's wire format against a loopback server (the offline model
    would quote the whole message back). The model is one whose context window the app does
    not know (a local OpenAI-compatible server's), so a 5 MB message is sent, not refused as
    too big for the window."""
    environ = dict(os.environ)
    environ["LLM_PROVIDER_CONFIG"] = json.dumps({
        "vendor": "openai", "model": "local-long-context", "api_key": SECRET,
        "base_url": server.url + "/v1"})
    return create_app(["--skills-dir", str(skills_dir)], environ=environ, cursor_blink=False)


async def paste(pilot, app, text: str) -> None:
    app.post_message(events.Paste(text))  # as a terminal's bracketed paste arrives
    await pilot.pause()


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[{" ": "space"}.get(ch, ch) for ch in text])


@pytest.mark.slow
async def test_a_5mb_paste_is_kept_whole_for_the_model_and_previewed_in_the_chat(skills_dir):
    """The composer shows a marker for a 5 MB paste, typing goes on around it, the model gets
    every byte, and the chat's user message renders a bounded preview with a note."""
    server = LoopbackServer().start()
    server.script(VENDORS["openai"].reply(["Got ", "it"]))
    app = wire_app(skills_dir, server)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_ready(pilot, app)
            composer = app.query_one("#composer")
            composer.focus()
            await type_text(pilot, "Summarise this: ")
            await paste(pilot, app, FIVE_MB)
            assert composer.text == "Summarise this: [Pasted text #1: 95,325 lines, 5.0 MB]"
            await type_text(pilot, " thanks")
            assert composer.text.endswith("5.0 MB] thanks")
            assert composer.full_text == "Summarise this: " + FIVE_MB + " thanks"

            await pilot.press("enter")
            await wait_turn(pilot, app)
            sent = server.requests[-1].body["messages"][-1]["content"]
            assert sent == "Summarise this: " + FIVE_MB + " thanks"
            message = list(app.query(UserMessage))[-1]
            assert message.text == sent and message.truncated
            shown = plain(message)
            assert len(shown) < PREVIEW_CHARS + 200
            assert shown.startswith("Summarise this: the quick brown fox")
            assert "5.0 MB more — sent to Birdie whole; /export shows it in full" in shown
            assert composer.text == ""

            await pilot.press("up")  # history brings the message back folded, not as 5 MB
            assert composer.text == "Summarise this: [Pasted text #1: 95,325 lines, 5.0 MB] thanks"
            assert composer.full_text == sent
    finally:
        server.stop()


async def test_backspace_removes_a_whole_paste_and_small_pastes_stay_inline(make_app):
    """A small paste is ordinary text; backspace right after a paste marker removes the whole
    paste (nothing of it is sent), Delete before one does the same."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot, app)
        composer = app.query_one("#composer")
        composer.focus()
        await paste(pilot, app, "short paste\nline two")
        assert composer.text == "short paste\nline two"
        composer.load_text("")
        await paste(pilot, app, "x" * 20_000)
        await type_text(pilot, "!")
        assert composer.text == "[Pasted text #1: 1 lines, 19.5 KB]!"
        await pilot.press("backspace", "backspace")
        assert composer.text == "" and composer.full_text == ""
        await paste(pilot, app, "y\n" * 300)
        await pilot.press("home", "delete")
        assert composer.text == ""


async def test_a_paste_over_the_limit_is_refused_and_loses_nothing(make_app):
    """A paste that would make the message bigger than 10 MB is refused with a message saying
    why and what to do; what was typed stays, and nothing is sent."""
    app = make_app()
    toasts: list[tuple[str, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot, app)
        app.notify = lambda text, **kw: toasts.append((kw.get("title", ""), text))
        composer = app.query_one("#composer")
        composer.focus()
        await type_text(pilot, "keep me")
        await paste(pilot, app, "z" * (MESSAGE_LIMIT + 1))
        assert composer.text == "keep me"
        assert toasts and toasts[-1][0] == "Paste too big"
        assert "over the 10.0 MB limit" in toasts[-1][1] and "file" in toasts[-1][1]
        assert not list(app.query(UserMessage))


def test_preview_cuts_lines_and_characters_and_says_how_much_is_left():
    """Short messages are shown whole; long ones are cut at 40 lines or 4,000 characters with
    a note of the lines and bytes left (multi-byte text sized in bytes)."""
    assert preview("hello\nworld") == ("hello\nworld", "")
    shown, note = preview("".join(f"line {i}\n" for i in range(100)))
    assert shown.splitlines()[-1] == "line 39" and note.startswith("… 60 more lines, ")
    shown, note = preview("é" * 10_000)
    assert len(shown) == PREVIEW_CHARS and "11.7 KB more" in note
