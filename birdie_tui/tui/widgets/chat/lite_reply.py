"""A finished reply as one leaf widget: Markdown rendered once per width, then served as lines.

Textual's Markdown keeps a widget per block, and every full layout walks them all: at a few
hundred turns that walk, not the new text, is what a streamed frame costs. Older replies (and the
finished parts of a long one) become a `LiteReply`. Rich renders its Markdown once per width; the
lines serve the height, every repaint and the selection. Each segment carries its
(column, line) offset as Textual's own text does, so a drag selects it and ctrl+c copies it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock
from rich.markdown import Markdown as RichMarkdown
from rich.markdown import MarkdownElement
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widget import Widget

from birdie_tui.tui.copying import CopyText
from birdie_tui.tui.widgets.chat.copy_affordance import LABEL

Line = list[Segment]
CODE = "birdie_code"  # the style meta key that marks a code block's cells with its number


class _MarkedCode(CodeBlock):
    """Rich's code block, every cell of it marked with the block's number (its code kept in
    `_Marked.codes`), so the rendered lines tell where each block is."""

    index = 0
    codes: list[str]

    @classmethod
    def create(cls, markdown: RichMarkdown, token: object) -> CodeBlock:
        block = super().create(markdown, token)  # type: ignore[arg-type]
        assert isinstance(block, _MarkedCode)
        codes: list[str] = markdown.codes  # type: ignore[attr-defined]  # a _Marked's
        block.index, block.codes = len(codes), codes
        codes.append("")  # its text arrives after creation (on_text)
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.codes[self.index] = str(self.text).rstrip()  # as Rich draws it (text came last)
        mark = RichStyle.from_meta({CODE: self.index})
        for renderable in super().__rich_console__(console, options):
            rendered = console.render(renderable, options)  # type: ignore[arg-type]
            yield from Segment.apply_style(rendered, post_style=mark)


class _Marked(RichMarkdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **RichMarkdown.elements, "fence": _MarkedCode, "code_block": _MarkedCode}

    def __init__(self, markup: str) -> None:
        self.codes: list[str] = []
        super().__init__(markup)


def _code_starts(lines: list[Line]) -> dict[int, tuple[int, int, int]]:
    """Each code block's first line: {line: (block, first column, end column)}."""
    starts: dict[int, tuple[int, int, int]] = {}
    seen: set[int] = set()
    for y, line in enumerate(lines):
        x = 0
        for segment in line:
            width = len(segment.text)
            meta = segment.style.meta if segment.style is not None else {}
            block = meta.get(CODE)
            if block is not None and block not in seen:
                seen.add(block)
                starts[y] = (block, x, x)
            if block is not None and y in starts and starts[y][0] == block:
                starts[y] = (block, starts[y][1], x + width)
            x += width
    return starts


def _labelled(line: Line, end: int) -> Line:
    """The line with " copy " drawn over the cells just left of column `end`."""
    text = f" {LABEL} "
    start = max(end - len(text), 0)
    out: Line = []
    x = 0
    for segment in line:
        left, right = x, x + len(segment.text)
        x = right
        if right <= start or left >= end:
            out.append(segment)
            continue
        if left < start:
            out.append(Segment(segment.text[:start - left], segment.style))
        if left <= start:
            dim = RichStyle(dim=True)
            out.append(Segment(text, segment.style + dim if segment.style else dim))
        if right > end:
            out.append(Segment(segment.text[end - left:], segment.style))
    return out


def _with_offsets(line: Line, y: int) -> Line:
    """The line with each segment's first character's (x, y) in its style's meta: how
    Textual's compositor maps a mouse position to a text offset for selection."""
    out: Line = []
    x = 0
    for text, style, control in line:
        meta = RichStyle.from_meta({"offset": (x, y)})
        out.append(Segment(text, (style + meta) if style is not None else meta, control))
        x += len(text)
    return out


def _highlight(line: Line, start: int, end: int, style: RichStyle) -> Line:
    """The line with characters [start, end) drawn in `style` on top (end -1: to the end)."""
    out: Line = []
    x = 0
    for segment in line:
        text = segment.text
        left, right = x, x + len(text)
        x = right
        stop = right if end == -1 else end
        if right <= start or left >= stop:
            out.append(segment)
            continue
        cut_a, cut_b = max(start - left, 0), min(stop - left, len(text))
        base = segment.style
        for piece, picked in ((text[:cut_a], False), (text[cut_a:cut_b], True),
                              (text[cut_b:], False)):
            if piece:
                out.append(Segment(piece, (base + style) if (picked and base) else
                                   (style if picked else base), segment.control))
    return out


class MarkdownLines(Visual):
    """Rich's Markdown of `source`, rendered once for the last width asked and kept."""

    def __init__(self, source: str, widget: Widget) -> None:
        self.source = source
        self._widget = widget  # its app renders (as Textual's own RichVisual keeps its widget)
        self._width = -1
        self._lines: list[Line] = []
        self._plain = ""
        self.codes: list[str] = []  # each code block's text, without its fences
        self._labels: dict[int, tuple[int, int, int]] = {}  # line: (block, label's columns)

    def lines(self, width: int) -> list[Line]:
        if width != self._width:
            app = self._widget.app
            options = app.console_options.update(highlight=False, width=width)
            markdown = _Marked(self.source)
            segments = app.console.render(markdown, options)
            split = list(Segment.split_and_crop_lines(segments, width, include_new_lines=False,
                                                      pad=False))
            self._plain = "\n".join("".join(seg.text for seg in line).rstrip() for line in split)
            # A code block's first line is the blank its padding adds: "copy" goes at its right.
            self._labels = {}
            for y, (block, _, end) in _code_starts(split).items():
                split[y] = _labelled(split[y], end)
                self._labels[y] = (block, max(end - len(LABEL) - 2, 0), end)
            self.codes = markdown.codes
            self._lines = [_with_offsets(line, y) for y, line in enumerate(split)]
            self._width = width
        return self._lines

    def plain(self, width: int) -> str:
        """The text on screen at `width`, one line per rendered line, trailing blanks cut (the
        "copy" labels left out: a selection takes the reply's words only)."""
        self.lines(width)
        return self._plain

    def code_at(self, x: int, y: int) -> str | None:
        """The code of the block whose "copy" label is at (x, y), if one is."""
        block, start, end = self._labels.get(y, (-1, 0, 0))
        return self.codes[block] if block >= 0 and start <= x < end else None

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width))

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        base = style.rich_style
        span = options.selection.get_span if options.selection is not None else None
        picked = options.selection_style.rich_style if options.selection_style else None
        strips = []
        for y, line in enumerate(self.lines(width)[:height]):
            if span is not None and picked is not None and (cut := span(y)) is not None:
                line = _highlight(line, cut[0], cut[1], picked)
            strips.append(Strip(Segment.apply_style(line, base)))
        return strips


class LiteReply(Widget):
    """A finished reply (or a finished part of one) as cached Markdown lines."""

    DEFAULT_CSS = """
    LiteReply { height: auto; }
    """

    def __init__(self, source: str, *, classes: str | None = "lite") -> None:
        super().__init__(classes=classes)
        self.source = source
        self._visual = MarkdownLines(source, self)

    def render(self) -> Visual:
        return self._visual

    def prepare(self, width: int) -> None:
        """Render the lines for `width` now (before mounting: the layout that places the widget
        then finds them kept). A width of 0 (not laid out yet) renders nothing."""
        if width > 0:
            self._visual.lines(width)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        width = self._visual._width if self._visual._width > 0 else self.content_region.width
        return selection.extract(self._visual.plain(width)), "\n"

    def on_click(self, event: events.Click) -> None:
        """A click on a code block's "copy" copies its code."""
        offset = event.get_content_offset(self)
        code = self._visual.code_at(offset.x, offset.y) if offset is not None else None
        if code is not None:
            event.stop()
            self.post_message(CopyText(code, "the code block"))
