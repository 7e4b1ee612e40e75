"""The log as a whole: entries, replay, pruning and sticking to the bottom."""

from __future__ import annotations

import time

from textual.widgets import Markdown

from birdie_tui.service.rows import ToolCallItem, TranscriptItem
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.chat_log import MAX_WIDGETS, PRUNED_TEXT, ChatLog, replay_start
from birdie_tui.tui.widgets.chat.notice import ErrorBlock, Notice
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage
from tests.tui.chat.harness import ChatHarness, plain


async def until(pilot, predicate, timeout: float = 10.0) -> None:
    """Wait for a condition (never a fixed sleep: a loaded CI machine is slower)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)


def conversation(turns: int) -> list[TranscriptItem]:
    items: list[TranscriptItem] = []
    for i in range(turns):
        items += [
            TranscriptItem("user", f"question {i} [b]?"),
            TranscriptItem("assistant", f"Let me look ({i}).",
                           tool_calls=(ToolCallItem(f"t{i}", "bash", {"cmd": f"echo {i}"}),)),
            TranscriptItem("tool", f"out {i}", tool_call_id=f"t{i}", name="bash",
                           error=i % 5 == 0),
            TranscriptItem("assistant", f"**Answer {i}**\n\n- a\n- b"),
        ]
    return items


async def test_entries_show_text_literally():
    """User, error and notice entries show their text literally; markdown notices render."""
    app = ChatHarness()
    async with app.run_test(size=(80, 30)) as pilot:
        user = app.chat.add_user("use [b]this[/b] *as is*")
        error = app.chat.add_error("boom [x]")
        notice = app.chat.add_notice("reloaded [skills]")
        table = app.chat.add_notice("| a | b |\n|---|---|\n| 1 | 2 |", markdown=True)
        await pilot.pause()
        assert isinstance(user, UserMessage) and plain(user) == "use [b]this[/b] *as is*"
        assert user.border_title == "you"
        assert isinstance(error, ErrorBlock) and plain(error) == "boom [x]" and error.border_title == "error"
        assert isinstance(notice, Notice) and plain(notice) == "reloaded [skills]"
        assert isinstance(table, Markdown) and table.query("MarkdownTable")
        assert list(app.chat.children) == [user, error, notice, table]


async def test_replay_rebuilds_a_mixed_conversation():
    """Replay rebuilds messages and tool blocks in order; a call with no result shows cancelled."""
    app = ChatHarness()
    async with app.run_test(size=(80, 30)) as pilot:
        items = conversation(3) + [
            TranscriptItem("assistant", "", tool_calls=(ToolCallItem("lost", "x"),)),
            TranscriptItem("system", "ignored"),
        ]
        await app.chat.replay(items)
        await pilot.pause()
        kinds = [type(w).__name__ for w in app.chat.children]
        assert kinds == ["UserMessage", "AssistantMessage", "ToolBlock", "AssistantMessage"] * 3 + ["ToolBlock"]
        blocks = list(app.chat.query_children(ToolBlock))
        assert [b.content for b in blocks[:3]] == ["out 0", "out 1", "out 2"]
        assert blocks[0].error and not blocks[0].collapsed and blocks[1].collapsed
        assert "cancelled" in blocks[3].title_text
        replies = list(app.chat.query_children(AssistantMessage))
        assert all(r.finished for r in replies)
        assert replies[-1].text == "**Answer 2**\n\n- a\n- b"
        assert replies[-1].markdown_widgets[0].source == replies[-1].text


async def test_replay_of_500_items_keeps_the_newest():
    """Replaying 500 items keeps the newest MAX_WIDGETS after a pruned notice, old replies lite."""
    app = ChatHarness()
    async with app.run_test(size=(80, 30)) as pilot:
        items = conversation(125)  # 500 items, 500 widgets before pruning
        await app.chat.replay(items)  # its speed is measured in bench/, not asserted here
        await pilot.pause()
        entries = [w for w in app.chat.children if not w.has_class("-pruned")]
        assert len(entries) == MAX_WIDGETS
        first = app.chat.children[0]
        assert isinstance(first, Notice) and plain(first) == PRUNED_TEXT
        assert isinstance(app.chat.children[-1], AssistantMessage)
        assert app.chat.children[-1].text.startswith("**Answer 124**")
        # the newest replies use the full renderer, older ones the cheap one
        replies = list(app.chat.query_children(AssistantMessage))
        assert not replies[-1].lite and replies[0].lite
        # only the kept tail was built: it starts at a user message, every tool block finished
        assert isinstance(app.chat.children[1], UserMessage)
        assert "question 50" in plain(app.chat.children[1])
        assert all(block.finished and not block._cancelled
                   for block in app.chat.query_children(ToolBlock))


def test_replay_start_keeps_whole_turns_within_the_limit():
    """replay_start picks the latest user message from which the rest fits, and 0 when all
    fits or no user message fits."""
    items = conversation(10)  # 4 entries per turn
    assert replay_start(items, 1000) == 0
    assert replay_start(items, 8) == 32  # the last two turns
    assert replay_start(items, 9) == 32  # a third turn does not fit whole
    assert replay_start(items, 3) == 0  # not even one turn: built whole, pruned after


async def test_pruning_keeps_max_widgets_and_one_notice():
    """Past MAX_WIDGETS the oldest entries are pruned behind one notice that is never repeated."""
    app = ChatHarness()
    async with app.run_test(size=(80, 30)) as pilot:
        first_block = app.chat.add_tool_call("early", "bash", {})
        for i in range(MAX_WIDGETS + 40):
            app.chat.add_notice(f"line {i}")
        await pilot.pause(0.1)
        children = list(app.chat.children)
        hidden = [w for w in children if w.has_class("-pruned")]
        assert len(hidden) == 1 and children[0] is hidden[0]
        assert len(children) == MAX_WIDGETS + 1
        assert plain(children[-1]) == f"line {MAX_WIDGETS + 39}"
        assert first_block not in children
        app.chat.finish_tool("early", "late result", False)  # pruned call: shown as a new block
        app.chat.add_notice("more")
        await pilot.pause(0.1)
        assert len([w for w in app.chat.children if w.has_class("-pruned")]) == 1


async def test_clear_log_removes_everything():
    """Clearing the log removes every entry; a late tool result then shows as a fresh block."""
    app = ChatHarness()
    async with app.run_test(size=(80, 30)) as pilot:
        await app.chat.replay(conversation(2))
        app.chat.add_tool_call("c9", "bash", {})
        await app.chat.clear_log()
        await pilot.pause()
        assert not app.chat.children
        app.chat.finish_tool("c9", "x", False)  # its block is gone: a fresh one appears
        await pilot.pause()
        assert len(app.chat.children) == 1


async def test_stays_at_bottom_unless_the_user_scrolls_up():
    """The log follows new output unless the user scrolled up; a new message jumps back down."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        chat: ChatLog = app.chat
        for i in range(60):
            chat.add_notice(f"filler {i}")
        await pilot.pause()
        assert chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y

        start_max = chat.max_scroll_y
        reply = chat.start_reply()
        for i in range(30):
            reply.append(f"streamed line {i}\n\n")
            await pilot.pause(0.02)
        # Followed the stream: the view reaches the new bottom (flushes are paced, so wait).
        await until(pilot, lambda: chat.max_scroll_y > start_max
                    and chat.scroll_y == chat.max_scroll_y)

        chat.scroll_home(animate=False)
        await pilot.pause()
        assert chat.scroll_y == 0
        before_max = chat.max_scroll_y
        for i in range(30):
            reply.append(f"more while reading {i}\n\n")
        await until(pilot, lambda: chat.max_scroll_y > before_max)
        await pilot.pause(0.1)
        assert chat.scroll_y == 0  # the reader was not yanked down

        chat.scroll_end(animate=False)
        await pilot.pause()
        for i in range(30):
            reply.append(f"after returning {i}\n\n")
        await pilot.pause(0.3)
        await reply.finish()
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y  # sticks to the bottom again

        chat.scroll_home(animate=False)
        await pilot.pause()
        chat.add_user("a new question")
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y > 0  # sending jumps back down
