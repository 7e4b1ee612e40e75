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


class WrappedParagraph(MarkdownParagraph):
    """`MarkdownParagraph` sharing one wrap between its height and its lines (see the module)."""

    _wrapped: tuple[Visual, Hashable, list[Strip]] | None = None
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

    def _lines(self, visual: Visual, width: int) -> list[Strip] | None:
        """The content's lines at `width`, wrapped at most once per change."""
        key = self._drawn_from(width)
        if key is None or not isinstance(visual, Content):
            return None
        kept = self._wrapped
        if kept is not None and kept[0] is visual and kept[1] == key:
            return kept[2]
        self.wraps += 1
        lines = Visual.to_strips(self, visual, width, None, self.visual_style)
        self._wrapped = (visual, key, lines)
        return lines

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        # Not mounted yet: the mount lays out the parent after this (see the module).
        layout = layout and self.is_mounted
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not width or self._content_height_cache[0] == width:
            return super().get_content_height(container, viewport, width)
        lines = self._lines(self._render(), width)
        if lines is None:
            return super().get_content_height(container, viewport, width)
        self._content_height_cache = (width, len(lines))
        return len(lines)

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
