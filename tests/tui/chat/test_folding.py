"""Entries far above the view are folded into one blank while the chat follows the bottom, and
shown again, whole and in place, as soon as the reader scrolls towards them."""

from __future__ import annotations

from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.folding import MIN_FOLD, FoldedSpace
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage
from tests.tui.chat.harness import ChatHarness
from tests.tui.chat.test_chat_log import until

REPLY = "Answer **{i}**\n\n- a\n- b\n\n```\ncode {i}\n```\n"


async def chat_turns(pilot, chat: ChatLog, turns: int, start: int = 0) -> None:
    """`turns` question/tool/reply turns, each reply streamed and finished as the app does."""
    for i in range(start, start + turns):
        chat.add_user(f"question {i}")
        chat.add_tool_call(f"t{i}", "bash", {"cmd": f"echo {i}"})
        chat.finish_tool(f"t{i}", f"out {i}", False)
        reply = chat.start_reply()
        reply.append(REPLY.format(i=i))
        await reply.finish()
        await pilot.pause()


def fold_laid_out(chat: ChatLog) -> bool:
    """A blank exists and the last layout placed it at its height: the stream layout may run a
    pass with its old placement first, and a scroll range read then is not the folded one."""
    spaces = chat.query(FoldedSpace)
    return bool(spaces) and spaces.first().region.height == spaces.first().lines


def displayed(chat: ChatLog) -> list:
    return [child for child in chat.children if child.display]


async def test_far_entries_fold_into_one_blank_and_the_scroll_range_stays():
    """After many turns only the last screens' entries are displayed; one blank stands in for
    the rest, the scroll range is what it was without folding, and the view still follows."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        await chat_turns(pilot, chat, 30)
        await until(pilot, lambda: fold_laid_out(chat))
        space = chat.query_one(FoldedSpace)
        hidden = [child for child in chat.children if not child.display]
        assert len(hidden) >= MIN_FOLD and space.lines > 0
        assert len(displayed(chat)) < len(chat.children) / 2
        folded_max = chat.max_scroll_y
        assert chat.scroll_y == folded_max

        chat._fold.unfold()  # the same log shown whole: the same scroll range
        await pilot.pause()
        assert chat.max_scroll_y == folded_max
        assert not chat.query(FoldedSpace) and all(child.display for child in chat.children)


async def test_scrolling_up_shows_every_entry_again_in_order():
    """A reader who scrolls up towards the blank gets every entry back, in order, with its
    text, and the blank is gone; a reply streaming while scrolled up folds nothing."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        await chat_turns(pilot, chat, 30)
        await until(pilot, lambda: chat.query(FoldedSpace))
        chat.scroll_home(animate=False)
        await until(pilot, lambda: not chat.query(FoldedSpace))
        assert all(child.display for child in chat.children)
        users = [m for m in chat.children if isinstance(m, UserMessage)]
        assert [m.text for m in users] == [f"question {i}" for i in range(30)]
        replies = list(chat.query_children(AssistantMessage))
        assert [r.text for r in replies] == [REPLY.format(i=i) for i in range(30)]
        assert chat.scroll_y == 0 and replies[0].region.height > 0

        reply = chat.start_reply()  # a reply streams while the reader is up there
        for i in range(40):
            reply.append(f"streamed paragraph {i}\n\n")
        await reply.finish()
        await pilot.pause(0.2)
        assert not chat.query(FoldedSpace) and chat.scroll_y == 0


async def test_a_new_width_or_tool_output_mode_shows_everything_again():
    """Folded heights belong to one width and one tool output mode: changing either unfolds."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        await chat_turns(pilot, chat, 30)
        await until(pilot, lambda: chat.query(FoldedSpace))
        await pilot.resize_terminal(60, 24)
        await until(pilot, lambda: not chat.query(FoldedSpace))
        assert all(child.display for child in chat.children)

        await chat_turns(pilot, chat, 4, start=30)
        await until(pilot, lambda: chat.query(FoldedSpace))
        chat.set_tool_output_mode("off")
        await pilot.pause()
        assert not chat.query(FoldedSpace) and all(child.display for child in chat.children)
        assert all(block.mode == "off" for block in chat.query_children(ToolBlock))


async def test_pruned_folded_entries_leave_the_blank_with_their_lines():
    """When the log drops its oldest entries (MAX_WIDGETS) and they were folded, the blank
    shrinks by their lines: the scroll range matches the entries still there."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        chat.MAX_WIDGETS = 40
        await chat_turns(pilot, chat, 30)
        await until(pilot, lambda: fold_laid_out(chat))
        folded_max = chat.max_scroll_y
        chat._fold.unfold()
        await pilot.pause()
        assert chat.max_scroll_y == folded_max  # the "hidden" notice above the blank included
