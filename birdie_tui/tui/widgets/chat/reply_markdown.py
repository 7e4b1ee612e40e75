"""A reply's Markdown: Textual's, cheaper to stream into (see `ReplyMarkdown`)."""

from __future__ import annotations

import functools
from typing import Any

from markdown_it import MarkdownIt
from textual.await_complete import AwaitComplete
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget
from textual.widgets import Markdown

from birdie_tui.tui.layout_pass import arranged_size
from birdie_tui.tui.widgets.chat.copy_affordance import CopyFence
from birdie_tui.tui.widgets.chat.reply_lists import ReplyBulletList, ReplyOrderedList
from birdie_tui.tui.widgets.chat.wrapped_paragraph import WrappedParagraph

STREAM_STEP = 4  # lines the streaming paragraph grows by at a time (see ReplyMarkdown)


@functools.cache
def _shared_parser() -> MarkdownIt:
    return MarkdownIt("gfm-like")  # what Textual's Markdown makes without a factory


class ReplyMarkdown(Markdown):
    """Textual's Markdown, drawn as plain background under its blocks (see AssistantMessage),
    its code blocks with a "copy" of their own, its paragraphs wrapped once a frame.

    An append that leaves the source's last block one paragraph sets that paragraph's content
    in place. Textual's append builds a new paragraph widget from the parse, sets and styles
    its content, then copies the content into the mounted paragraph and drops the new one:
    about half of an append's cost (bench/RESULTS.md §41).
    A list streams in place as well (`reply_lists`).

    While it streams, its last paragraph grows `STREAM_STEP` lines at a time (blank rows below
    the text): a flush that fills one of them repaints a few rows, where a paragraph one line
    taller is a layout pass of the whole screen and a paint of every visible row of the chat
    (bench/RESULTS.md §40). A paragraph that is no longer last, or a stream that ends, gives
    the rows back."""

    BLANK = True
    BLOCKS = {**Markdown.BLOCKS, "fence": CopyFence, "code_block": CopyFence,
              "paragraph_open": WrappedParagraph, "bullet_list_open": ReplyBulletList,
              "ordered_list_open": ReplyOrderedList}
    _streaming = False
    _tail: WrappedParagraph | None = None  # the last paragraph, growing in steps
    _behind: AwaitComplete | None = None  # the last update or append left to Textual

    def __init__(self, markdown: str | None = None, **kwargs: Any) -> None:
        # Textual builds a new parser for every append (~0.3 ms of compiling its rules and
        # linkify's patterns); parsing does not change one, so all replies share it.
        kwargs.setdefault("parser_factory", _shared_parser)
        super().__init__(markdown, **kwargs)

    def update(self, markdown: str) -> AwaitComplete:
        self._behind = super().update(markdown)
        return self._behind

    def append(self, markdown: str) -> AwaitComplete:
        if self._append_in_place(markdown):
            done: AwaitComplete = AwaitComplete.nothing()  # type: ignore[no-untyped-call]
            return done
        self._behind = super().append(markdown)
        return self._behind

    def _append_in_place(self, markdown: str) -> bool:
        """Textual's append, done at once, when the source from the last block on parses to
        one top-level paragraph and the last block is that paragraph: the same source range,
        token and content on the same widget (as `MarkdownParagraph._update_from_block` leaves
        them). False (nothing changed) for anything else, left to Textual's append."""
        blocks = self.children
        last = blocks[-1] if blocks else None
        if not isinstance(last, WrappedParagraph) or self.lock.is_locked or (
                self._behind is not None and not self._behind.is_done):
            return False  # an update or append of Textual's not done: the blocks are not final
        source = self.source + markdown
        start = self._last_parsed_line
        parser = self._parser_factory() if self._parser_factory else _shared_parser()
        tokens = parser.parse("".join(source.splitlines(keepends=True)[start:]))
        if len(tokens) != 3 or tokens[0].type != "paragraph_open" or tokens[0].level \
                or tokens[1].type != "inline" or not tokens[0].map or tokens[0].map[0]:
            return False
        self._markdown = source
        first, end = tokens[0].map
        last.source_range = (first + start, end + start)
        last._token, last._inline_token = tokens[0], tokens[1]
        last.set_content(last._token_to_content(tokens[1]))
        return True

    def streaming(self, on: bool) -> None:
        """The reply streams into this widget (`on`) or no longer does."""
        self._streaming = on
        if not on and self._tail is not None:
            tail, self._tail = self._tail, None
            tail.grow_in_steps(1)
            tail.refresh(layout=True)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        if self._streaming:
            last = self.children[-1] if self.children else None
            tail = last if isinstance(last, WrappedParagraph) else None
            if tail is not self._tail and self._tail is not None:
                self._tail.grow_in_steps(1)  # a block was added: laid out in this pass anyway
            if tail is not None:
                tail.grow_in_steps(self._step())
            self._tail = tail
        return super().arrange(arranged_size(self, size), optimal)  # once a frame, not twice

    def _step(self) -> int:
        """STREAM_STEP once what scrolls the reply shows its scrollbar, else 1. Spare rows
        could otherwise flip the bar: the rows make the chat overflow, the bar narrows the
        text, and a paragraph a line longer takes a whole step more (or the other way), every
        frame. Once the bar is up the chat only grows while the reply streams."""
        for node in self.ancestors:
            if isinstance(node, Widget) and node.styles.overflow_y != "hidden":
                return STREAM_STEP if node.show_vertical_scrollbar else 1
        return 1
