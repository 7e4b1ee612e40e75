"""A Markdown paragraph wrapped once per width: its height and its lines come from one wrap.

While a reply streams, each flush gives the last paragraph new content. Textual then wraps it
twice in the frame: `get_content_height` wraps it (without styles) to learn its height, and
`render_lines` wraps it again (with styles) to draw it, ~40 % of the reflow of a streamed frame
(bench/RESULTS.md §24). A wrapped line count does not depend on the styles, so the height can
be read off the drawn lines: `WrappedParagraph` renders its lines when asked its height and
keeps them for that width, and the paint that follows takes them. The lines are kept with what
they were drawn from (the content, the width, the styles, the selection), so any change draws
anew: the output is the uncached path's, line for line.

A new paragraph asks for no layout of its own before it is mounted. Textual's Markdown builds
each block and sets its content (`update`, which asks for a layout) before mounting it, and
the mount lays out the parent once the block is mounted (`AwaitMount`). The block's own request
reached the screen only after that pass: a second full pass that moved and drew nothing, each
time a streamed reply started a paragraph (~2 a second, bench/RESULTS.md §35).

New content that wraps to as many lines as the paragraph has asks for no layout at all: its
size, and so every placement on the screen, stays as it was. Textual's `update` asks for a full
layout pass (every widget arranged again, every visible row of the chat painted) whatever
changed; here only the rows from the first changed line down are painted. A streamed reply
adds a line every few flushes, so most flushes at a higher rate cost a few rows, not a frame
(bench/RESULTS.md §40).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Self

from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import _RenderCache
from textual.widgets._markdown import MarkdownParagraph

from birdie_tui.tui.widgets.chat import line_wrap
from birdie_tui.tui.widgets.chat.line_wrap import Wrapped


class WrappedParagraph(MarkdownParagraph):
    """`MarkdownParagraph` sharing one wrap between its height and its lines (see the module)."""

    # The lines drawn, what they were drawn from, and where each starts (see line_wrap).
    _wrapped: tuple[Visual, Hashable, list[Strip], Wrapped | None] | None = None
    _repaint_rows: Region | None = None  # set_content's rows to repaint, for refresh
    _step = 1  # the height grows in steps of this many lines (see `grow_in_steps`)
    wraps = 0  # wraps of this paragraph's content into lines (tests)

    def _drawn_from(self, width: int) -> Hashable | None:
        """Everything but the content that the lines depend on; None: not cacheable (the
        uncached path then runs)."""
        styles = self.styles
        if styles.content_align != ("left", "top"):
            return None  # aligned lines are padded to the widget's height, unknown here
        return (width, self.visual_style, self.text_selection, styles.text_align,
                styles.text_overflow, styles.text_wrap, styles.line_pad, self.auto_links,
                self.link_style, self.screen._selecting)

    def _lines(self, visual: Visual, width: int, key: Hashable | None = None) -> list[Strip] | None:
        """The content's lines at `width`, wrapped at most once per change (`key`: what
        `_drawn_from` gives, if the caller has it)."""
        key = self._drawn_from(width) if key is None else key
        if key is None or not isinstance(visual, Content):
            return None
        kept = self._wrapped
        if kept is not None and kept[0] is visual and kept[1] == key:
            return kept[2]
        self.wraps += 1
        before = kept[3] if kept is not None and kept[1] == key else None
        wrapped = line_wrap.wrap(self, visual, width, before)
        if wrapped is None:
            lines = Visual.to_strips(self, visual, width, None, self.visual_style)
        else:
            lines = wrapped.lines
        self._wrapped = (visual, key, lines, wrapped)
        return lines

    def grow_in_steps(self, step: int) -> None:
        """Make the height a multiple of `step` lines (blank rows below the text), so text that
        streams in fills them before the paragraph grows; 1: the text's own height. Laid out
        anew with the next layout pass (the caller asks for one if nothing else does)."""
        step = max(1, step)
        if step != self._step:
            self._step = step
            self.clear_cached_dimensions()
            self._box_model_cache.clear()  # its height is kept there too, until a layout refresh

    def _height(self, lines: int) -> int:
        return lines + (-lines % self._step)

    def set_content(self, content: Content) -> None:
        rows = self._changed_rows(content)
        if rows is None:
            super().set_content(content)
            return
        self._content = content
        self._repaint_rows = rows
        try:
            self.update(content, layout=False)
        finally:
            self._repaint_rows = None

    def _changed_rows(self, content: Content) -> Region | None:
        """The rows `content` changes if it wraps to as many lines as are laid out now, else
        None (the size changes, or what is drawn is not known: a full layout)."""
        if not self.is_mounted:
            return None
        width, height = self.size
        kept = self._wrapped
        if not (width and height) or kept is None or kept[0] is not self.visual:
            return None
        key = self._drawn_from(width)
        if kept[1] != key:
            return None
        old = kept[2]
        if self._height(len(old)) != height:
            return None
        new = self._lines(content, width, key)
        if new is None or self._height(len(new)) != height:
            return None
        first = next((y for y, (a, b) in enumerate(zip(old, new)) if a != b),
                     min(len(old), len(new)))
        first = min(first, height - 1)
        return Region(0, first, width, height - first)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        # Not mounted yet: the mount lays out the parent after this (see the module).
        layout = layout and self.is_mounted
        if self._repaint_rows is not None and not regions and not layout:
            regions = (self._repaint_rows,)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not width or self._content_height_cache[0] == width:
            return super().get_content_height(container, viewport, width)
        lines = self._lines(self._render(), width)
        if lines is None:
            return super().get_content_height(container, viewport, width)
        height = self._height(len(lines))
        self._content_height_cache = (width, height)
        return height

    def _render_content(self) -> None:
        width, height = self.size
        lines = self._lines(self._render(), width)
        if lines is None:
            super()._render_content()
            return
        self._render_cache = _RenderCache(self.size, lines[:height])
        self._dirty_regions.clear()

    def notify_style_update(self) -> None:
        self._wrapped = None  # a theme's variables can restyle the spans: draw anew
        super().notify_style_update()
