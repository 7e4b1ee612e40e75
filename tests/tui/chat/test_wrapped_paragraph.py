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
    from birdie_tui.tui.widgets.chat import line_wrap

    wrapped: collections.Counter[tuple[str, int]] = collections.Counter()
    original = line_wrap.wrap

    def counting(widget, content, width, *args, **kwargs):  # type: ignore[no-untyped-def]
        wrapped[content.plain, width] += 1  # a scrollbar that appears narrows the text
        return original(widget, content, width, *args, **kwargs)

    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        line_wrap.wrap = counting  # type: ignore[assignment]
        try:
            for word in range(60):
                reply.append(f"word{word} and some more ")
                await pilot.pause(0.03)
        finally:
            line_wrap.wrap = original  # type: ignore[assignment]
        grown = {key: n for key, n in wrapped.items() if key[0].startswith("word0 and")}
        assert len(grown) >= 5  # it grew over several frames...
        assert max(grown.values()) == 1, grown  # ...and each content was wrapped once
        assert reply.query_one(WrappedParagraph).wraps >= len(grown)
        await reply.finish()


async def _overflow(app: ChatHarness) -> None:
    """Fill the chat past its height: spare rows are kept only once it shows its scrollbar."""
    from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage

    await app.chat.mount(AssistantMessage.static("An earlier reply.\n\n" * 30))
    await app.chat.mount(AssistantMessage.static("Another one.\n\n" * 30))


def _text_rows(paragraph: WrappedParagraph) -> list[str]:
    return [strip.text.rstrip() for strip in paragraph.render_lines(Region(0, 0, *paragraph.size))]


async def test_a_streaming_paragraph_grows_in_steps_and_gives_the_spare_rows_back():
    """While a reply streams, its last paragraph is a multiple of STREAM_STEP rows (the text,
    then blank rows it fills); paragraphs above it, and the last one once the reply ends, are
    their text's height: the finished reply looks as if it had never streamed."""
    from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
    from birdie_tui.tui.widgets.chat.reply_markdown import STREAM_STEP

    app = ChatHarness()
    async with app.run_test(size=(60, 40)) as pilot:
        await _overflow(app)
        reply = app.chat.start_reply()
        await pilot.pause()
        reply.append("First paragraph, short.\n\nSecond ")
        await pilot.pause(0.1)
        assert app.chat.show_vertical_scrollbar
        spare = 0
        for word in range(80):
            reply.append(f"word{word} ")
            await pilot.pause(0.03)
            first, *rest = reply.query(WrappedParagraph)
            last = rest[-1]
            assert first.size.height == 1
            lines = len([row for row in _text_rows(last) if row])
            assert last.size.height % STREAM_STEP == 0, word
            assert lines <= last.size.height < lines + STREAM_STEP, word
            spare += last.size.height > lines
            if word >= 30 and last.size.height > lines:
                break  # end the reply with spare rows to give back
        assert spare > 10  # blank rows stood ready below the text most of the time
        await reply.finish()
        await pilot.pause()
        for paragraph in reply.query(WrappedParagraph):
            assert all(_text_rows(paragraph)), "a blank row left after the reply ended"
        fresh = AssistantMessage.static(reply.text)
        await app.chat.mount(fresh)
        await pilot.pause()
        assert [p.size for p in fresh.query(WrappedParagraph)] == \
            [p.size for p in reply.query(WrappedParagraph)]
        assert reply.size == fresh.size


async def test_text_that_fills_a_spare_row_is_painted_without_a_layout_pass():
    """New words that do not need a new step of rows: no layout pass, and only the rows from the
    first changed line down are marked for repaint; a new step lays out again."""
    from textual._compositor import Compositor

    app = ChatHarness()
    reflows = 0
    original = Compositor.reflow

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal reflows
        reflows += 1
        return original(self, *args, **kwargs)

    async with app.run_test(size=(60, 40)) as pilot:
        await _overflow(app)
        reply = app.chat.start_reply()
        await pilot.pause()
        reply.append("A paragraph that will wrap onto several lines " * 2)
        await pilot.pause(0.2)
        paragraph = reply.query_one(WrappedParagraph)
        height = paragraph.size.height
        width = paragraph.size.width
        assert len([row for row in _text_rows(paragraph) if row]) == 2 and height > 2
        refreshed: list[tuple[set[Region], bool]] = []
        refresh = paragraph.refresh

        def spy(*regions: Region, **kwargs):  # type: ignore[no-untyped-def]
            result = refresh(*regions, **kwargs)
            refreshed.append((set(paragraph._repaint_regions), kwargs.get("layout", False)))
            return result

        paragraph.refresh = spy  # type: ignore[method-assign]
        Compositor.reflow = counting  # type: ignore[method-assign]
        try:
            for word in ("a ", "b ", "c "):
                reply.append(word)
                await pilot.pause(0.15)
                assert paragraph.size.height == height
                assert _text_rows(paragraph)[1].endswith(word.strip())
            assert reflows == 0
            rows = Region(0, 1, width, height - 1).translate(paragraph.content_offset)
            assert refreshed and all(call == ({rows}, False) for call in refreshed), refreshed
            reply.append("and a great deal more text to need another step of rows " * 4)
            await pilot.pause(0.3)
            assert paragraph.size.height > height
            assert reflows >= 1
        finally:
            Compositor.reflow = original  # type: ignore[method-assign]
        await reply.finish()


async def test_no_spare_rows_while_the_chat_fits_its_view():
    """Until the chat shows its scrollbar the streaming paragraph is its text's height: spare
    rows could make the chat overflow, the bar narrow the text, and the two flip every frame."""
    app = ChatHarness()
    async with app.run_test(size=(60, 40)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        for word in range(12):
            reply.append(f"word{word} ")
            await pilot.pause(0.03)
        assert not app.chat.show_vertical_scrollbar
        paragraph = reply.query_one(WrappedParagraph)
        assert paragraph.size.height == len([row for row in _text_rows(paragraph) if row]) == 2
        await reply.finish()


async def test_paragraphs_the_stream_has_moved_past_keep_no_spare_rows():
    """A paced stream of many paragraphs: each time a new one starts, the one before it gives
    its spare rows back at once, mid-stream and after the end (Textual keeps a widget's height
    in its box-model cache too: changing the step alone left the old height standing)."""
    import random

    rng = random.Random(3)
    words = ["plover", "dunlin", "at", "the", "estuary", "calls", "over", "mud", "kittiwake"]
    text = "".join(" ".join(rng.choice(words) for _ in range(rng.randint(20, 70))) + ".\n\n"
                   for _ in range(14))
    app = ChatHarness()
    async with app.run_test(size=(70, 30)) as pilot:
        await _overflow(app)
        reply = app.chat.start_reply()
        await pilot.pause()
        checked = 0
        for start in range(0, len(text), 24):
            reply.append(text[start:start + 24])
            await pilot.pause(0.02)
            await pilot.pause()  # the frame that lays the new block out
            *before, _last = reply.query(WrappedParagraph) or [None]
            for paragraph in before:
                assert paragraph is not None and all(_text_rows(paragraph)), start
                checked += 1
        await reply.finish()
        await pilot.pause()
        for paragraph in reply.query(WrappedParagraph):
            assert all(_text_rows(paragraph))
    assert checked > 100
