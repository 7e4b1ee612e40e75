"""A streamed paragraph is wrapped once a frame, and draws what Textual's paragraph draws."""

from __future__ import annotations

import collections

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Offset, Region
from textual.selection import Selection
from textual.strip import Strip
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownParagraph

from birdie_tui.tui.widgets.chat.wrapped_paragraph import WrappedParagraph
from tests.tui.chat.harness import ChatHarness

TEXTS = [
    "x",
    "one word",
    "A paragraph with **bold**, *italic*, `code`, [a link](https://example.com) and "
    + "more words " * 40,
    "averyveryverylongwordthatmustbefoldedbecauseitdoesnotfitonanylineatall" * 3,
    "wide 漢字の段落 and emoji 🐦🐦 " * 12,
    "soft\nbreaks\nin a paragraph  \nand a hard one",
]


class Wrapped(Markdown):
    BLOCKS = {**Markdown.BLOCKS, "paragraph_open": WrappedParagraph}


class Pair(App[None]):
    CSS = "Markdown { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Markdown(id="stock")
            yield Wrapped(id="wrapped")


def _drawn(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


async def test_a_wrapped_paragraph_draws_what_textual_s_paragraph_draws():
    """Texts with spans, folds, wide characters and breaks, at several widths, with and without
    a selection: the same height and the same lines as the stock paragraph."""
    app = Pair()
    async with app.run_test(size=(100, 60)) as pilot:
        stock, wrapped = app.query_one("#stock", Markdown), app.query_one("#wrapped", Markdown)
        compared = 0
        for width in (100, 62, 24):
            await pilot.resize_terminal(width, 60)
            for text in TEXTS:
                await stock.update(text)
                await wrapped.update(text)
                await pilot.pause()
                a, b = (md.query_one(MarkdownParagraph) for md in (stock, wrapped))
                assert isinstance(b, WrappedParagraph) and type(a) is MarkdownParagraph
                for selection in (None, Selection.from_offsets(Offset(0, 0), Offset(5, 1))):
                    app.screen.selections = {} if selection is None else {a: selection,
                                                                          b: selection}
                    for paragraph in (a, b):
                        paragraph.selection_updated(selection)
                    await pilot.pause()
                    assert a.size == b.size, (width, text[:20])
                    whole = Region(0, 0, *a.size)
                    assert _drawn(b.render_lines(whole)) == _drawn(a.render_lines(whole)), \
                        (width, text[:20], selection)
                    compared += 1
        assert compared == 3 * len(TEXTS) * 2


async def test_a_streamed_paragraph_is_wrapped_once_a_frame():
    """Each flush gives the growing paragraph new content; Textual wrapped it twice in the
    frame (for its height, then to draw it), the wrapped paragraph once."""
    wrapped: collections.Counter[str] = collections.Counter()
    original = Content._wrap_and_format

    def counting(self: Content, *args, **kwargs):  # type: ignore[no-untyped-def]
        wrapped[self.plain] += 1
        return original(self, *args, **kwargs)

    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        Content._wrap_and_format = counting  # type: ignore[method-assign]
        try:
            for word in range(60):
                reply.append(f"word{word} and some more ")
                await pilot.pause(0.03)
        finally:
            Content._wrap_and_format = original  # type: ignore[method-assign]
        grown = {text: n for text, n in wrapped.items() if text.startswith("word0 and")}
        assert len(grown) >= 5  # it grew over several frames...
        assert max(grown.values()) == 1, grown  # ...and each content was wrapped once
        assert reply.query_one(WrappedParagraph).wraps >= len(grown)
        await reply.finish()
