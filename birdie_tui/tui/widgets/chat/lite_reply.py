"""A finished reply as one leaf widget: Markdown rendered once per width, then served as lines.

Textual's Markdown keeps a widget per block, and every full layout walks them all: at a few
hundred turns that walk, not the new text, is what a streamed frame costs. Older replies (and the
finished parts of a long one) become a `LiteReply`. Rich renders its Markdown once per width; the
lines serve the height, every repaint and the selection. Each segment carries its
(column, line) offset as Textual's own text does, so a drag selects it and ctrl+c copies it.
"""

from __future__ import annotations

from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.css.styles import RulesMap
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widget import Widget

Line = list[Segment]


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

    def lines(self, width: int) -> list[Line]:
        if width != self._width:
            app = self._widget.app
            options = app.console_options.update(highlight=False, width=width)
            segments = app.console.render(RichMarkdown(self.source), options)
            split = Segment.split_and_crop_lines(segments, width, include_new_lines=False,
                                                 pad=False)
            self._lines = [_with_offsets(line, y) for y, line in enumerate(split)]
            self._width = width
        return self._lines

    def plain(self, width: int) -> str:
        """The text on screen at `width`, one line per rendered line, trailing blanks cut."""
        return "\n".join("".join(seg.text for seg in line).rstrip() for line in self.lines(width))

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

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        width = self._visual._width if self._visual._width > 0 else self.content_region.width
        return selection.extract(self._visual.plain(width)), "\n"
