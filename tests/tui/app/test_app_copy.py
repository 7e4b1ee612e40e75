"""Copying from the chat as a user does it: F8 and /copy (the last reply's Markdown, the reply
to a message, a code block), and a click on the "copy" of a code block (streamed and lite), a
reply and a user message. Over both doors; what the terminal would get is what
`app.copy_to_clipboard` is given (tests/tui/test_copy_pty.py checks the bytes)."""

from __future__ import annotations

import pytest

from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.copy_affordance import CopyButton, CopyFence
from birdie_tui.tui.widgets.chat.lite_reply import LiteReply
from birdie_tui.tui.widgets.chat.user_message import UserMessage

from .conftest import last_reply, send, wait_for, wait_ready, wait_turn

pytestmark = pytest.mark.app

CODE = "def hello():\n    return 'hi'"
MESSAGE = f"Here is some code:\n\n```python\n{CODE}\n```\n\nand more words after it."


def captured(app) -> list[str]:
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # what the terminal would get, via OSC 52
    return copied


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_f8_and_copy_copy_the_last_replys_markdown(any_app):
    """F8 and /copy copy the last reply's Markdown source, /copy N the reply to message N,
    /copy code its last code block's content; nothing to copy or a bad N is said, not
    copied."""
    app = any_app()
    copied = captured(app)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_ready(pilot, app)
        await pilot.press("f8")
        await wait_for(pilot, lambda: any("No reply to copy" in t for t in toasts(app)))
        assert not copied
        await send(pilot, app, "first message")
        await wait_turn(pilot, app)
        first = last_reply(app)
        await send(pilot, app, MESSAGE)
        await wait_turn(pilot, app)
        reply = last_reply(app)
        assert "```python" in reply
        await pilot.press("f8")
        await wait_for(pilot, lambda: len(copied) == 1)
        assert copied[-1] == reply  # the Markdown source, fences and all
        assert f"Copied the reply ({len(reply):,} characters)" in toasts(app)
        await send(pilot, app, "/copy")
        await wait_for(pilot, lambda: len(copied) == 2)
        assert copied[-1] == reply
        await send(pilot, app, "/copy 1")  # the reply to message 1, as /history numbers it
        await wait_for(pilot, lambda: len(copied) == 3)
        assert copied[-1] == first
        await send(pilot, app, "/copy code")
        await wait_for(pilot, lambda: len(copied) == 4)
        assert copied[-1] == CODE  # the block's content only, no fences
        assert any(t.startswith("Copied the last code block of the reply") for t in toasts(app))
        await send(pilot, app, "/copy 1 code")  # the first reply has no code block
        await wait_for(pilot, lambda: any("No code block" in t for t in toasts(app)))
        await send(pilot, app, "/copy 7")
        await wait_for(pilot, lambda: any("Message 7 has no reply" in t for t in toasts(app)))
        await send(pilot, app, "/copy two")
        await wait_for(pilot, lambda: any("usage: /copy" in t for t in toasts(app)))
        assert len(copied) == 4


async def test_click_copies_a_code_block_of_a_streamed_and_of_a_lite_reply(any_app):
    """The "copy" on a code block's top edge copies its code, in Textual's Markdown and in a
    reply turned into cached lines; a click on the code itself copies nothing."""
    app = any_app()
    copied = captured(app)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, MESSAGE)
        await wait_turn(pilot, app)
        reply = list(app.query(AssistantMessage))[-1]
        fence = reply.query_one(CopyFence)
        assert fence.border_title == "copy"
        await pilot.click(fence, offset=(fence.size.width - 4, 0))
        await wait_for(pilot, lambda: len(copied) == 1)
        assert copied == [CODE]
        assert f"Copied the code block ({len(CODE)} characters)" in toasts(app)
        await pilot.click(fence, offset=(2, 2))  # on the code itself: nothing copied
        await pilot.pause()
        assert len(copied) == 1

        assert await reply.to_lite()  # as the chat does to replies far up
        await pilot.pause()
        lite = reply.query_one(LiteReply)
        [(y, (block, start, end))] = lite._visual._labels.items()
        assert "copy" in "".join(s.text for s in lite._visual.lines(lite.size.width)[y])
        assert "copy" not in lite._visual.plain(lite.size.width)  # a selection skips it
        await pilot.click(lite, offset=(start + 2, y))
        await wait_for(pilot, lambda: len(copied) == 2)
        assert copied[-1] == CODE
        await pilot.click(lite, offset=(start + 2, y + 1))  # the code line under it
        await pilot.pause()
        assert len(copied) == 2


async def test_click_copies_a_reply_and_a_user_message_from_their_top_right(any_app):
    """Under the mouse a user message and a reply show "copy" at their top right; a click
    there copies the message as typed, or the reply's Markdown."""
    app = any_app()
    copied = captured(app)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "a message\nof two lines")
        await wait_turn(pilot, app)
        message = app.query_one(UserMessage)
        await pilot.hover(message, offset=(5, 1))
        await wait_for(pilot, lambda: message.border_title.endswith("copy"))
        assert message.border_title.startswith("you")
        await pilot.click(message, offset=(message.size.width - 3, 0))
        await wait_for(pilot, lambda: len(copied) == 1)
        assert copied == ["a message\nof two lines"]
        assert "Copied your message (22 characters)" in toasts(app)
        await pilot.click(message, offset=(3, 1))  # the text itself: nothing
        await pilot.pause()
        assert len(copied) == 1

        reply = list(app.query(AssistantMessage))[-1]
        await pilot.hover(reply, offset=(5, 1))
        await wait_for(pilot, lambda: reply.has_class("-hovered"))
        await wait_for(pilot, lambda: reply.query_one(CopyButton).region.width > 0)
        await pilot.hover(message, offset=(5, 1))
        await wait_for(pilot, lambda: not reply.has_class("-hovered"))
        assert not reply.query_one(CopyButton).display  # shown only under the mouse
        await pilot.click(reply, offset=(reply.size.width - 3, 0))
        await wait_for(pilot, lambda: len(copied) == 2)
        assert copied[-1] == reply.text
