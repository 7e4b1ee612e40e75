"""A code block's lines drawn once: a streamed flush renders only the source lines it changed.

While a code block streams, every flush gives its label the whole highlighted code again, and
Textual wraps and renders every line of it, twice or three times a frame (its height, its
width, its lines): a flush of a 300-line block cost 58 ms, of a 1,000-line one 162 ms
(`bench/code_block.py`, bench/RESULTS.md §43). Code wraps line by line (a newline always ends
a row), so a source line draws the same rows wherever the rest of the block changed, as long
as it keeps its text, its spans and its place (each row carries its line number for text
selection).

`CodeContent` is the highlighted code with a cache its label keeps from one content to the next
(`CodeCache`): rows per source line, keyed by what they are drawn from, and row counts per line
for the height. A render with text selected, or anything this does not know, takes Textual's
own path; the rows are those of `Content.render_strips` (`tests/tui/chat/test_code_lines.py`
compares them on random streams, so a change upstream fails there).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from textual.content import Content
from textual.css.types import TextAlign, TextOverflow
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions


class Rules(NamedTuple):
    """The style rules a code line's rows depend on, as `Content.render_strips` reads them."""

    align: TextAlign
    overflow: TextOverflow
    no_wrap: bool
    line_pad: int

    @classmethod
    def read(cls, rules: Mapping[str, Any]) -> Rules:
        get = rules.get
        return cls(cast(TextAlign, get("text_align", "left")),
                   cast(TextOverflow, get("text_overflow", "fold")),
                   get("text_wrap", "wrap") == "nowrap", int(get("line_pad", 0)))


@dataclass
class CodeCache:
    """Rows and row counts of the source lines a label drew last (see the module)."""

    rows: dict[Hashable, list[Strip]] = field(default_factory=dict)
    heights: dict[Hashable, int] = field(default_factory=dict)
    rendered_lines: int = 0  # lines rendered anew, not taken from the cache (tests)

    def clear(self) -> None:
        self.rows.clear()
        self.heights.clear()


class CodeContent(Content):
    """Highlighted code that renders each source line once per look (see the module)."""

    __slots__ = ["cache"]

    def __init__(self, content: Content, cache: CodeCache) -> None:
        super().__init__(content.plain, list(content.spans), content.cell_length)
        self.cache = cache

    def get_height(self, rules: Mapping[str, Any], width: int) -> int:
        look = Rules.read(rules)
        before = self.cache.heights
        after: dict[Hashable, int] = {}
        height = 0
        for text in self.plain.split("\n"):
            key = (text, width, look.overflow, look.no_wrap, look.line_pad)
            rows = before.get(key)
            if rows is None:
                rows = len(Content(text)._wrap_and_format(
                    width - look.line_pad * 2, overflow=look.overflow, no_wrap=look.no_wrap))
            after[key] = rows
            height += rows
        self.cache.heights = after
        return height

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        if not width or options.selection is not None:
            return super().render_strips(width, height, style, options)
        rules = Rules.read(options.rules)
        look = (width, style, rules, options.post_style, options.get_style)
        before = self.cache.rows
        after: dict[Hashable, list[Strip]] = {}
        strips: list[Strip] = []
        for y, line in enumerate(self.split(allow_blank=True)):
            key = (y, line.plain, tuple(line.spans), look)
            rows = before.get(key)
            if rows is None:
                self.cache.rendered_lines += 1
                formatted = line._wrap_and_format(
                    width, align=rules.align, overflow=rules.overflow, no_wrap=rules.no_wrap,
                    line_pad=rules.line_pad, post_style=options.post_style,
                    get_style=options.get_style)
                for row in formatted:
                    row.y = y  # the line's place in the block, as a whole render numbers it
                rows = [Strip(*row.to_strip(style)) for row in formatted]
            after[key] = rows
            strips.extend(rows)
        self.cache.rows = after
        return strips if height is None else strips[:height]
