"""Streaming replies: buffered flushes, splitting long replies, finishing and interrupting."""

from __future__ import annotations

import asyncio

import pytest
from textual.geometry import Region
from textual.widgets import Label, Markdown, Static
from textual.widgets.markdown import MarkdownFence

from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.reply_splitter import ParagraphSplitter
from birdie_tui.tui.widgets.chat.copy_affordance import CopyButton
from birdie_tui.tui.widgets.chat.lite_reply import LiteReply
from tests.tui.chat.harness import ChatHarness


def rendered_source(reply: AssistantMessage) -> str:
    return reply.rendered_text


async def test_burst_of_fragments_ends_up_in_the_markdown():
    """A burst of 2000 fragments appended at once all reaches the markdown when the reply ends."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        fragments = [f"tok{i} " + ("\n\n" if i % 50 == 49 else "") for i in range(2000)]
        for fragment in fragments:
            reply.append(fragment)
        await reply.finish()
        await pilot.pause()
        assert reply.text == "".join(fragments)
        assert rendered_source(reply) == reply.text
        assert reply.finished


async def test_paced_stream_flushes_several_times_and_updates_mid_stream():
    """A paced stream flushes often and shows text mid-stream; appends after finish are dropped."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        for batch in range(5):
            for i in range(400):
                reply.append(f"w{batch}-{i} ")
            await pilot.pause(0.2)
            if batch == 0:
                assert reply.flush_count >= 1
                assert rendered_source(reply).startswith("w0-0 ")  # visible before the end
        await reply.finish()
        assert reply.flush_count >= 5
        assert rendered_source(reply) == reply.text
        reply.append("ignored after finish")
        assert "ignored" not in reply.text


async def test_long_reply_splits_into_several_markdown_widgets_outside_fences():
    """A long streamed reply splits into several parts, never inside a code fence; finished
    parts collapse into one lite widget each, and only the last stays Markdown."""
    paragraphs = []
    for i in range(60):
        paragraphs.append(f"Paragraph {i} " + "lorem ipsum dolor sit amet " * 10)
        if i % 7 == 3:  # fences with blank lines inside: never a split point
            paragraphs.append("```python\n" + "\n\n".join(f"x{j} = {j}" for j in range(40)) + "\n```")
    text = "\n\n".join(paragraphs) + "\n"
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        for start in range(0, len(text), 37):  # token-sized pieces, paced so flushes happen
            reply.append(text[start:start + 37])
            if start % (37 * 40) == 0:
                await pilot.pause(0.07)
        await reply.finish()
        await pilot.pause()
        parts = [part for part in reply.children if not isinstance(part, CopyButton)]
        assert len(parts) > 1 and len(reply.markdown_widgets) == 1
        assert all(part.has_class("lite") for part in parts[:-1])
        assert rendered_source(reply) == text
        for above, below in zip(parts, parts[1:]):  # the blank row Markdown leaves under a block
            assert below.region.y == above.region.bottom + 1, (above.source[-40:], below.region)
        for part in parts:
            source = part.source
            fence_lines = [ln for ln in source.splitlines() if ln.strip().startswith("```")]
            assert len(fence_lines) % 2 == 0, "a fence was split across widgets"
            assert not source.startswith((" ", "\t"))


def long_reply(count: int) -> str:
    """A reply of `count` ~340-character paragraphs: long enough to be cut into parts."""
    return "".join(f"Paragraph {i} " + "lorem ipsum dolor sit amet " * 12 + "\n\n"
                   for i in range(count))


async def test_a_finished_part_is_rendered_once_and_never_inside_a_layout_pass(monkeypatch):
    """Each part a long reply is cut into is rendered by Rich once, after a frame went out and
    at the width its place has: the layout that mounts it finds its lines kept (rendered inside
    that pass, it held back the frame showing the next part's first text)."""
    from textual._compositor import Compositor

    from birdie_tui.tui.widgets.chat import lite_reply

    renders: list[bool] = []  # one per render: inside a layout pass?
    laying_out = [False]
    real_marked, real_reflow = lite_reply._Marked, Compositor.reflow

    def counting(source: str) -> object:
        renders.append(laying_out[0])
        return real_marked(source)

    def reflow(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        laying_out[0] = True
        try:
            return real_reflow(self, *args, **kwargs)
        finally:
            laying_out[0] = False

    monkeypatch.setattr(lite_reply, "_Marked", counting)
    monkeypatch.setattr(Compositor, "reflow", reflow)
    text = long_reply(50)
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        for start in range(0, len(text), 300):
            reply.append(text[start:start + 300])
            await pilot.pause(0.03)
        await reply.finish()
        await pilot.pause()
        parts = [part for part in reply.children if isinstance(part, LiteReply)]
        assert len(parts) >= 2 and len(reply.markdown_widgets) == 1
        assert rendered_source(reply) == text
        assert renders == [False] * len(parts)


async def test_a_reply_made_lite_before_its_part_is_collapsed_stays_one_lite_reply():
    """A reply that ends and is made lite (it scrolled far up) while a part it cut off still
    waits for its collapse: the collapse finds the part gone and does nothing, the reply stays
    one lite widget of the whole text."""
    text = long_reply(30)
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        reply.append(text)
        while len(reply.markdown_widgets) < 2:  # a part was cut off, not yet collapsed
            await asyncio.sleep(0.005)
        await reply.finish()
        assert await reply.to_lite()
        await pilot.pause(0.2)
        parts = [child for child in reply.children if isinstance(child, LiteReply)]
        assert len(parts) == 1 and parts[0].source == text and not reply.markdown_widgets


def test_splitter_tracks_fences_across_fragment_boundaries():
    """Fences cut across fragments are still seen: splits fall only before and after the fence."""
    splitter = ParagraphSplitter(limit=10)
    text = "intro text here\n\n``" + "`py\na = 1\n\nb = 2\n``" + "`\n\nafter the fence\n"
    pieces = [text[i:i + 3] for i in range(0, len(text), 3)]
    splits: list[int] = []
    offset = 0
    for piece in pieces:
        splits += [offset + s for s in splitter.feed(piece)]
        offset += len(piece)
    starts = [text[s:s + 5] for s in splits]
    assert starts == ["```py", "after"]
    assert not splitter.in_fence


def test_splitter_never_splits_before_indented_lines():
    """The splitter never splits before an indented line, such as a list item's continuation."""
    splitter = ParagraphSplitter(limit=1)
    assert splitter.feed("- item\n\n    continued item\n\nnext\n") == [len("- item\n\n    continued item\n\n")]


async def test_finish_before_mount_renders_everything():
    """A reply finished before it is mounted still renders all of its text once mounted."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = AssistantMessage()
        reply.append("# Done\n\nearly *finish*")
        await reply.finish()
        await app.chat.mount(reply)
        await pilot.pause(0.1)
        assert rendered_source(reply) == "# Done\n\nearly *finish*"


async def test_mark_interrupted_adds_a_dim_line():
    """Interrupting keeps the text and adds one 'interrupted' line, even if marked twice."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        reply.append("half an ans")
        await reply.mark_interrupted()
        await pilot.pause()
        assert reply.interrupted and reply.finished
        assert rendered_source(reply) == "half an ans"
        notes = [w for w in reply.query(Static) if w.has_class("interrupted")]
        assert len(notes) == 1 and str(notes[0].render()) == "interrupted"
        await reply.mark_interrupted()  # idempotent
        assert len(reply.query(".interrupted")) == 1


async def test_static_messages_render_at_once():
    """Static replies finish at once: full ones as Markdown, lite ones as cheap plain text."""
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        full = AssistantMessage.static("**full** markdown")
        lite = AssistantMessage.static("**lite** markdown", lite=True)
        await app.chat.mount_all([full, lite])
        await pilot.pause()
        assert full.finished and rendered_source(full) == "**full** markdown"
        assert lite.lite and not lite.query(Markdown) and lite.text == "**lite** markdown"
        assert lite.query_one(".lite").region.height >= 1


def _feed_in_pieces(splitter: ParagraphSplitter, text: str, size: int = 7) -> list[int]:
    splits: list[int] = []
    for offset in range(0, len(text), size):
        splits += [offset + s for s in splitter.feed(text[offset:offset + size])]
    return splits


def test_splitter_cuts_a_long_tight_list_between_top_level_items():
    """A long tight list over the block limit is cut only before its top-level items."""
    items = "".join(f"- item {n}\n  - nested {n}\n" for n in range(40))
    text = "Intro\n" + items
    splits = _feed_in_pieces(ParagraphSplitter(limit=10_000, block_limit=100), text)
    assert len(splits) > 5
    assert all(text[s:s + 7] == "- item " for s in splits)


def test_splitter_cuts_a_long_quote_only_between_quoted_paragraphs():
    """A long block quote is cut only between its quoted paragraphs, after a bare `>` line."""
    para = "> " + "word " * 20 + "\n> more of the same paragraph\n"
    text = ">\n".join([para] * 20)
    splits = _feed_in_pieces(ParagraphSplitter(limit=10_000, block_limit=200), text)
    assert len(splits) > 5
    for s in splits:
        assert text[s - 2:s] == ">\n" and text[s:s + 7] == "> word "


def test_splitter_cuts_a_quote_sooner_than_a_list_when_told():
    """With a lower quote limit (a quote is remounted every flush, a list is not), a quote is
    cut at that limit and a list only at the list limit."""
    quote = ">\n".join(["> " + "word " * 20 + "\n"] * 20)
    items = "".join(f"- item {n} " + "word " * 10 + "\n" for n in range(40))
    quote_splits = _feed_in_pieces(ParagraphSplitter(10_000, 1_000, quote_limit=200), quote)
    list_splits = _feed_in_pieces(ParagraphSplitter(10_000, 1_000, quote_limit=200), items)
    assert len(quote_splits) >= 8  # ~2,100 characters cut every ~200
    assert 1 <= len(list_splits) <= 2  # ~2,600 characters cut every ~1,000
    assert min(b - a for a, b in zip([0, *list_splits], list_splits)) >= 1_000


def test_splitter_never_cuts_a_setext_heading_or_inside_a_fence():
    """A setext underline or a list-like line inside a fence is never a cut point."""
    text = ("Title\n-\n" + "x" * 50 + "\n") * 5 + "```\n" + "- not an item\n" * 30 + "```\n"
    splits = _feed_in_pieces(ParagraphSplitter(limit=10_000, block_limit=10), text)
    assert splits == []


CODE_LINE = "X" * 100 + "_" + "Y" * 96 + "END"  # 200 characters, no space to break at


def painted(widget) -> str:
    """Everything the widget paints, whitespace removed (so wrapped rows join up again)."""
    strips = widget.render_lines(Region(0, 0, *widget.region.size))
    return "".join("".join(strip.text.split()) for strip in strips)


async def test_a_200_char_code_line_wraps_in_a_full_reply_at_80_columns():
    """A 200-character code line in a full reply wraps at 80 columns, none of it scrolled away."""
    app = ChatHarness()
    async with app.run_test(size=(80, 40)) as pilot:
        text = f"Here:\n\n```python\n{CODE_LINE}\nshort = 1\n```\n\nafter\n"
        reply = AssistantMessage.static(text)
        await app.chat.mount(reply)
        await pilot.pause(0.1)
        fence = reply.query_one(MarkdownFence)
        code = fence.query_one(Label)
        # Textual scrolls a wide fence sideways behind a hidden scrollbar: nothing may hide there.
        assert fence.max_scroll_x == 0
        assert fence.region.contains_region(code.region)
        assert CODE_LINE in painted(code)
        assert "short=1" in painted(code)


@pytest.mark.parametrize("lite", [True, False])
async def test_a_streamed_or_replayed_code_line_is_never_cut(lite):
    """A long code line is painted whole, whether streamed (full reply) or replayed (lite)."""
    app = ChatHarness()
    async with app.run_test(size=(80, 40)) as pilot:
        text = f"```\n{CODE_LINE}\n```\n"
        if lite:
            reply = AssistantMessage.static(text, lite=True)
            await app.chat.mount(reply)
        else:
            reply = app.chat.start_reply()
            await pilot.pause()
            reply.append(text)
            await reply.finish()
        await pilot.pause(0.1)
        if lite:
            assert CODE_LINE in painted(reply.query_one(".lite"))
        else:
            fence = reply.query_one(MarkdownFence)
            assert fence.max_scroll_x == 0
            assert CODE_LINE in painted(fence.query_one(Label))


async def test_a_growing_reply_renders_only_its_blocks_lines():
    """While a reply streams, the reply and its Markdown (background under their blocks) draw
    no lines of their own: growing them re-rendered every visible line on each frame."""
    from textual.widget import Widget

    app = ChatHarness()
    drawn: list[str] = []
    original = Widget.render_line

    def counting(self: Widget, y: int):  # type: ignore[no-untyped-def]
        drawn.append(type(self).__name__)
        return original(self, y)

    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        Widget.render_line = counting  # type: ignore[method-assign]
        try:
            for line in range(40):
                reply.append(f"line {line} of a paragraph that grows\n")
                await pilot.pause(0.02)
            await reply.finish()
            await pilot.pause()
        finally:
            Widget.render_line = original  # type: ignore[method-assign]
        assert "WrappedParagraph" in drawn  # the text itself is drawn...
        assert not {"AssistantMessage", "ReplyMarkdown"} & set(drawn)  # ...its frame is not


async def test_no_full_garbage_collection_while_a_reply_streams():
    """A streaming reply holds Python's full collections (each one froze the screen mid-stream);
    the thresholds come back once its end is on screen, or when it is removed mid-stream."""
    import gc

    from birdie_tui.tui import collector

    before = gc.get_threshold()
    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        assert collector.holding()
        assert gc.get_threshold()[2] == collector.NO_FULL_PASS
        reply.append("some text")
        await reply.finish()
        await pilot.pause(0.5)  # released once the frame that shows the end is out
        assert not collector.holding()
        assert gc.get_threshold() == before
        dropped = app.chat.start_reply()
        await pilot.pause()
        assert collector.holding()
        await dropped.remove()
        assert gc.get_threshold() == before
