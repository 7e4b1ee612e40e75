"""A reply's Markdown appended to in place: the same blocks as Textual's append gives, fragment
by fragment, with the streaming paragraph kept as one widget."""

from __future__ import annotations

import random

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets._markdown import MarkdownBlock

from birdie_tui.tui.widgets.chat.reply_markdown import ReplyMarkdown
from birdie_tui.tui.widgets.chat.wrapped_paragraph import WrappedParagraph

# Block kinds a fragment can turn a paragraph into (a setext underline, a list, a table, a
# fence, a heading), inline spans cut anywhere, breaks, and paragraphs that run long.
REPLY = """\
Streaming replies start with a paragraph that has **bold text**, *emphasis*, `inline code`
and a [link](https://example.com/a_b) that wraps over more than one line of the chat, then
goes on for a while so that several fragments land inside it before it ends.

A paragraph that turns into a heading
---

- a list item
- another with `code`
  continued

1. first
2. second

| a | b |
|---|---|
| 1 | 2 |

```python
def f():
    return 1
```

## A heading

Soft
breaks and a hard one  
here, ~~struck~~, and a line that ends with a star *
then more text after it. 漢字 and 🐦 wide characters fold too: averyveryverylongword.

> a quote
> that goes on

Last paragraph, left open at the end without a newline"""


class Stock(ReplyMarkdown):
    """The same blocks, every append through Textual's own path."""

    def _append_in_place(self, markdown: str) -> bool:
        return False


class Pair(App[None]):
    CSS = "ReplyMarkdown { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Stock(id="stock")
            yield ReplyMarkdown(id="reply")


def _blocks(markdown: ReplyMarkdown) -> list[tuple[object, ...]]:
    found = []
    for block in markdown.query(MarkdownBlock):
        content = block._content
        found.append((type(block).__name__, block.source_range, content.plain,
                      [(s.start, s.end, str(s.style)) for s in content.spans]))
    return found


async def test_appends_in_place_give_the_blocks_textual_s_append_gives():
    """The reply cut into random fragments (three cuts): after every append both widgets hold
    the same blocks, source ranges and content; most appends were made in place, and a
    paragraph appended to in place is the same widget."""
    app = Pair()
    async with app.run_test(size=(160, 60)) as pilot:
        stock, reply = app.query_one("#stock", Stock), app.query_one("#reply", ReplyMarkdown)
        in_place = appends = 0
        for seed in range(3):
            rng = random.Random(seed)
            await stock.update("")
            await reply.update("")
            cuts = sorted(rng.sample(range(1, len(REPLY)), 120))
            for a, b in zip([0, *cuts], [*cuts, len(REPLY)]):
                fragment = REPLY[a:b]
                before = reply.children[-1] if reply.children else None
                went = reply._append_in_place(fragment)
                if not went:
                    await reply.append(fragment)
                await stock.append(fragment)
                appends += 1
                if went:
                    in_place += 1
                    assert isinstance(before, WrappedParagraph)
                    assert reply.children[-1] is before
                assert reply.source == stock.source
                assert _blocks(reply) == _blocks(stock), (seed, a, b)
            await pilot.pause()
        assert in_place > appends // 3


async def test_an_append_waits_for_one_of_textual_s_not_yet_done():
    """An append left to Textual's path (it makes the paragraph a heading) and another made
    before awaiting it, which parses to one paragraph again: the second is not made in place
    on blocks the first has not rebuilt yet, so both widgets end as Textual's append leaves
    them (in place, the first's heading would land over the second's paragraph)."""
    app = Pair()
    async with app.run_test(size=(160, 60)):
        stock, reply = app.query_one("#stock", Stock), app.query_one("#reply", ReplyMarkdown)
        for markdown in (stock, reply):
            await markdown.append("A first paragraph.\n\nA second")
            first = markdown.append("\n---")  # a setext heading now: Textual's path
            second = markdown.append("x, a paragraph again")  # before `first` has run
            await first
            await second
        assert reply.source == stock.source
        assert _blocks(reply) == _blocks(stock)


async def test_an_append_waits_for_an_update_not_yet_done():
    """A new document set (`update`) and an append made before awaiting it: the append is
    not made in place on the blocks the update is about to replace."""
    app = Pair()
    async with app.run_test(size=(160, 60)):
        stock, reply = app.query_one("#stock", Stock), app.query_one("#reply", ReplyMarkdown)
        for markdown in (stock, reply):
            await markdown.append("An old paragraph")
            replaced = markdown.update("A new paragraph")  # not awaited
            appended = markdown.append(" and more of it")
            await replaced
            await appended
        assert reply.source == stock.source
        assert _blocks(reply) == _blocks(stock)
