"""Finished replies as cached lines: they look like rich's Markdown, select and copy like text,
render once per width, and live replies far up the chat become one leaf each."""

from __future__ import annotations

from textual.widgets import Markdown

from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.chat_log import FULL_MARKDOWN_REPLIES, ChatLog
from birdie_tui.tui.widgets.chat.lite_reply import LiteReply
from tests.tui.chat.harness import ChatHarness
from tests.tui.chat.test_chat_log import until

REPLY = "# Terns\n\nThe **arctic** tern flies far.\n\n- one\n- two\n\n```python\nprint('tern')\n```\n"


def screen_rows(widget: LiteReply) -> list[str]:
    """The widget's content rows (inside its padding) as drawn on screen."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


def at(widget: LiteReply, x: int, y: int) -> tuple[int, int]:
    """A mouse offset in the widget for column x, row y of its content."""
    return x + widget.gutter.left, y + widget.gutter.top


async def test_a_drag_over_a_lite_reply_selects_what_is_under_it_and_highlights_it():
    """A mouse drag from one row to the next selects exactly the characters between, as with
    Textual's own text; the selected cells are drawn in the selection style."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        reply = AssistantMessage.static(REPLY, lite=True)
        await chat.mount(reply)
        await pilot.pause()
        lite = reply.query_one(LiteReply)
        rows = screen_rows(lite)
        y = next(i for i, row in enumerate(rows) if "arctic" in row)
        x = rows[y].index("arctic")
        await pilot.mouse_down(lite, offset=at(lite, x, y))
        await pilot.hover(lite, offset=at(lite, x + 5, y))  # the last cell is included
        await pilot.mouse_up(lite, offset=at(lite, x + 5, y))  # the last cell is included
        await pilot.pause()
        assert app.screen.get_selected_text() == "arctic"
        painted = lite.render_line(y)
        selected = [seg for seg in painted if seg.text.strip() == "arctic"]
        unselected = [seg for seg in painted if "flies" in seg.text]
        assert selected and unselected and selected[0].style != unselected[0].style

        # across rows: from "arctic" down into the list
        item = next(i for i, row in enumerate(rows) if "two" in row)
        end = at(lite, rows[item].index("two") + 3, item)
        await pilot.mouse_down(lite, offset=at(lite, x, y))
        await pilot.hover(lite, offset=end)
        await pilot.mouse_up(lite, offset=end)
        await pilot.pause()
        text = app.screen.get_selected_text()
        assert text is not None
        assert text.startswith("arctic tern flies far.") and text.rstrip().endswith("two")
        assert "one" in text


async def test_a_lite_reply_renders_its_markdown_once_per_width(monkeypatch):
    """Height, repaints and selection share one render at a width; a new width renders anew."""
    from birdie_tui.tui.widgets.chat import lite_reply

    renders: list[int] = []
    real = lite_reply._Marked  # Rich's Markdown, its code blocks marked

    def counting(source: str) -> object:
        renders.append(1)
        return real(source)

    monkeypatch.setattr(lite_reply, "_Marked", counting)
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = AssistantMessage.static(REPLY, lite=True)
        await app.chat.mount(reply)
        await pilot.pause()
        lite = reply.query_one(LiteReply)
        assert "arctic" in "".join(screen_rows(lite))
        for _ in range(3):
            lite.refresh()
            await pilot.pause()
        assert len(renders) == 1
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        assert len(renders) == 2 and "arctic" in "".join(screen_rows(lite))


async def test_live_replies_pushed_far_up_become_one_leaf_each():
    """After more than FULL_MARKDOWN_REPLIES replies, the older ones hold one LiteReply and no
    Markdown widgets, with the same text; those on screen stay Textual Markdown."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        total = FULL_MARKDOWN_REPLIES + 5
        for i in range(total):
            chat.add_user(f"question {i}")
            reply = chat.start_reply()
            reply.append(f"Answer **{i}**\n\n- a\n- b\n\n```\ncode {i}\n```\n")
            await reply.finish()
            await pilot.pause()
        chat.add_user("one more")
        last = chat.start_reply()
        last.append("the end")
        await last.finish()
        replies = list(chat.query_children(AssistantMessage))
        old, new = replies[:-FULL_MARKDOWN_REPLIES], replies[-FULL_MARKDOWN_REPLIES:]
        await until(pilot, lambda: all(r.lite for r in old))
        assert len(old) == total + 1 - FULL_MARKDOWN_REPLIES
        for i, reply in enumerate(old):
            assert not reply.query(Markdown) and len(reply.query(LiteReply)) == 1
            assert reply.rendered_text == reply.text == f"Answer **{i}**\n\n- a\n- b\n\n```\ncode {i}\n```\n"
        # what is on screen stays Textual Markdown (those folded far up turn lite: test_folding)
        in_view: list[AssistantMessage] = []

        def last_in_view() -> bool:
            in_view[:] = [r for r in new if r.display and r.region.overlaps(chat.region)]
            return new[-1] in in_view

        await until(pilot, last_in_view)
        assert all(not r.lite and r.query(Markdown) for r in in_view)
        assert len(list(chat.query("*"))) < 20 * FULL_MARKDOWN_REPLIES + 4 * total


async def test_a_reader_scrolled_up_is_not_moved_by_replies_turning_lite():
    """While the user reads above, older replies are left as they are (their height may
    change when they turn lite); back at the bottom, the next reply settles them."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        for i in range(FULL_MARKDOWN_REPLIES):
            reply = chat.start_reply()
            reply.append(f"# Heading {i}\n\ntext {i}\n")
            await reply.finish()
        await pilot.pause()
        chat.scroll_to(y=5, animate=False)
        await pilot.pause()
        reply = chat.start_reply()
        reply.append("new")
        await reply.finish()
        await pilot.pause(0.2)
        first = chat.query_children(AssistantMessage).first()
        assert not first.lite and chat.scroll_y == 5
        chat.scroll_end(animate=False)
        await pilot.pause()
        reply = chat.start_reply()
        await until(pilot, lambda: first.lite)
