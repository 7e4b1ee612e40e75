"""A reply's Markdown appended to in place: the same blocks as Textual's append gives, fragment
by fragment, with the streaming paragraph and a streaming list kept as the same widgets."""

from __future__ import annotations

import random

import pytest

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets._markdown import (MarkdownBlock, MarkdownBullet, MarkdownBulletList,
                                       MarkdownOrderedList)

from birdie_tui.tui.widgets.chat.reply_lists import ReplyBulletList, ReplyOrderedList
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


# Lists as models stream them: tight and loose, nested, numbered past 9 and from 7, items
# with a code block or a second paragraph, lazy continuation lines, a list that ends.
LISTS = """\
Intro paragraph.

- first item with **bold**
- second item that runs on for a while so that it wraps at the width of the test app,
  with a continuation line
- third
  - nested one
  - nested two
- fourth, after the nested list

1. one
2. two
3. three
4. four
5. five
6. six
7. seven
8. eight
9. nine
10. ten
11. eleven

7. seven again
8. eight again

* loose item

* another loose item

  with a second paragraph

* item with code:

  ```python
  x = 1
  ```

- a list
lazily continued

After the lists, a paragraph.

- and a last list left open"""


class Stock(ReplyMarkdown):
    """The same blocks, every append through Textual's own path."""

    BLOCKS = {**ReplyMarkdown.BLOCKS, "bullet_list_open": MarkdownBulletList,
              "ordered_list_open": MarkdownOrderedList}

    def _append_in_place(self, markdown: str) -> bool:
        return False


class Pair(App[None]):
    CSS = "ReplyMarkdown { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Stock(id="stock")
            yield ReplyMarkdown(id="reply")


_TEXTUAL = {ReplyBulletList: MarkdownBulletList, ReplyOrderedList: MarkdownOrderedList}


def _blocks(markdown: ReplyMarkdown, sizes: bool = False) -> list[tuple[object, ...]]:
    """Every widget under the Markdown in order: its kind (ours named as Textual's), depth (and
    laid-out size), and a block's source range and content or a bullet's symbol."""
    found: list[tuple[object, ...]] = []
    for widget in markdown.query(Widget):
        kind = _TEXTUAL.get(type(widget), type(widget)).__name__  # type: ignore[call-overload]
        depth = (len(widget.ancestors), widget.size) if sizes else len(widget.ancestors)
        if isinstance(widget, MarkdownBlock):
            content = widget._content
            found.append((kind, depth, widget.source_range, content.plain,
                          [(s.start, s.end, str(s.style)) for s in content.spans]))
        elif isinstance(widget, MarkdownBullet):
            found.append((kind, depth, widget.symbol))
        else:
            found.append((kind, depth))
    return found


@pytest.mark.parametrize("text", [REPLY, LISTS], ids=["blocks", "lists"])
async def test_appends_in_place_give_the_blocks_textual_s_append_gives(text):
    """The reply cut into random fragments (three cuts): after every append both widgets hold
    the same widgets, source ranges, content and bullets; most appends were made in place, and
    a paragraph appended to in place is the same widget."""
    app = Pair()
    async with app.run_test(size=(160, 60)) as pilot:
        stock, reply = app.query_one("#stock", Stock), app.query_one("#reply", ReplyMarkdown)
        in_place = appends = 0
        for seed in range(3):
            rng = random.Random(seed)
            await stock.update("")
            await reply.update("")
            cuts = sorted(rng.sample(range(1, len(text)), 120))
            for a, b in zip([0, *cuts], [*cuts, len(text)]):
                fragment = text[a:b]
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
            assert _blocks(reply, sizes=True) == _blocks(stock, sizes=True)  # styled the same
        if text is REPLY:  # the lists' own keeping is the next test's
            assert in_place > appends // 3


async def test_a_streaming_list_keeps_its_widgets():
    """A list streamed a few characters at a time stays the same list widget, its first rows
    the same rows, and ends as Textual's append leaves it (which mounts a new list each time)."""
    text = "".join(f"{n}. item number {n} of the list, with a few words\n" for n in range(1, 13))
    app = Pair()
    async with app.run_test(size=(160, 60)) as pilot:
        stock, reply = app.query_one("#stock", Stock), app.query_one("#reply", ReplyMarkdown)
        kept = None
        for start in range(0, len(text), 7):
            await reply.append(text[start:start + 7])
            await stock.append(text[start:start + 7])
            if kept is None and len(reply.query(MarkdownBullet)) >= 2:
                kept = (reply.children[0], reply.children[0].children[0])
        assert kept is not None and isinstance(kept[0], ReplyOrderedList)
        assert (reply.children[0], reply.children[0].children[0]) == kept
        await pilot.pause()
        assert _blocks(reply, sizes=True) == _blocks(stock, sizes=True)
        assert [b.symbol for b in reply.query(MarkdownBullet)][-1] == " 12. "  # as Textual pads


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
