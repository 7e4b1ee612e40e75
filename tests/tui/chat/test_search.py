"""Finding text in the chat (ctrl+f) over the texts the entries keep: a 2,000-message session
is searched per keystroke without rendering anything, and an entry's text is lowered again only
when it changes."""

from __future__ import annotations

import time

from textual.app import ComposeResult

from birdie_tui.service.rows import ToolCallItem, TranscriptItem
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.search import TextCache, find, offset_of
from birdie_tui.tui.widgets.search_bar import SearchBar
from tests.tui.chat.harness import ChatHarness

LONG_REPLY = ("A paragraph of a long answer with `code` and **bold** words. " * 40 + "\n\n") * 5


class SearchHarness(ChatHarness):
    def compose(self) -> ComposeResult:
        yield SearchBar(id="search")
        yield from super().compose()


def session(messages: int) -> list[TranscriptItem]:
    items: list[TranscriptItem] = []
    for n in range(messages // 2):
        items.append(TranscriptItem("user", f"question {n}"))
        call = ToolCallItem(f"c{n}", "bash", {"command": f"grep needle{n} ."})
        items.append(TranscriptItem("assistant", LONG_REPLY + f"answer {n}", (call,)))
        items.append(TranscriptItem("tool", "x" * 2_000 + f" needle{n} found", tool_call_id=f"c{n}",
                                    name="bash"))
    return items


async def test_a_long_session_is_searched_per_keystroke_in_milliseconds():
    """2,000 messages replayed (the log keeps its last 300 entries): each keystroke's search
    takes a few milliseconds once the texts are kept, the first one well under a frame's
    budget of 50 ms, and the counts are right."""
    app = SearchHarness()
    async with app.run_test(size=(100, 30)) as pilot:
        chat = app.query_one(ChatLog)
        await chat.replay(session(2_000))
        await pilot.pause()
        entries = chat.search_entries()
        cache = TextCache()
        started = time.perf_counter()
        hits = find(entries, "ANSWER 99", cache)  # the first search lowers every text
        first = time.perf_counter() - started
        assert hits.total == 10  # the kept turns are the last 100: answers 990..999
        timings = []
        for query in ["n", "ne", "nee", "need", "needl", "needle", "needle9", "needle99"]:
            started = time.perf_counter()
            hits = find(entries, query, cache)
            timings.append(time.perf_counter() - started)
        assert hits.total == 10 * 2  # each call's argument and its output
        assert first < 0.05 and max(timings) < 0.02, (first, timings)


def test_the_cache_follows_a_changed_text_and_offsets_do_not_overlap():
    """A kept text is lowered again when the entry's text changes; matches are counted and
    located without overlapping, as `str.count` counts them; an empty query finds nothing."""
    from birdie_tui.tui.widgets.chat.notice import Notice

    notice = Notice("aaaa")
    cache = TextCache()
    assert find([notice], "AA", cache).total == 2
    assert offset_of(notice, "aa", 1, cache) == (2, 4)
    notice.text = "aa then AA and aA"
    assert find([notice], "aa", cache).total == 3
    assert find([notice], "", cache).total == 0
