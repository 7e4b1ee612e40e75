"""The chat log's vertical scrollbar, its lines kept by what they draw.

While a reply streams, the anchored log grows and scrolls every frame, and each scroll moves
its scrollbar: Textual's `ScrollBar` clears its line cache and sends all of its lines through
the generic line pipeline again (one `StylesCache.render_line` per row, three `Strip`s and their
caches each), ~1.8 ms a render and the most expensive widget of a streamed frame
(bench/RESULTS.md §24). Yet what it draws is a thumb whose ends move in eighths of a cell: at
the bottom of a long log the thumb stays put for dozens of frames.

`CachedScrollBar` keys its lines by what the stock bar would draw (the thumb's start and end in
eighths, the bar's size, its colours, hover and grab, the widget's own style and filters) and
builds a new key from rows it has drawn before: each row of a vertical bar is one segment of
`render_bar` (blank above, thumb, a glyph at each end, blank below), and the strip Textual's
own pipeline made of that segment is kept. Only a row never seen (a new glyph, colour or size)
goes through the pipeline, so the pixels are the stock bar's; a repeated key is a dictionary
lookup. Upstream, `ScrollBar.render_lines` could do the same.
"""

from __future__ import annotations

from collections.abc import Hashable
from math import ceil

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget

# Keys kept: the states a bar flips between (thumb here or one eighth on, hovered or not).
KEPT = 8


def thumb_eighths(size: int, virtual_size: int, window_size: int,
                  position: float, cells: int) -> tuple[int, int] | None:
    """Where `ScrollBarRender.render_bar` puts the thumb's ends, in units of 1/`cells` of a
    cell; None when it draws no thumb. The same arithmetic, so equal answers draw alike."""
    if not (window_size and size and virtual_size and size != virtual_size):
        return None
    thumb_size = max(1, window_size / (virtual_size / size))
    at = (size - thumb_size) * (position / (virtual_size - window_size))
    start = int(at * cells)
    return start, start + ceil(thumb_size * cells)


class CachedScrollBar(ScrollBar):
    """A `ScrollBar` whose rendered lines are cached by what they draw (see the module)."""

    def __init__(self, vertical: bool = True, name: str | None = None, *,
                 thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._kept: dict[Hashable, list[Strip]] = {}
        # Each row of a vertical bar is one segment of `render_bar`, drawn alone (no border or
        # padding): the strip Textual made of a segment, for the bar's current look.
        self._rows: dict[tuple[str, Style | None], Strip] = {}
        self._rows_look: Hashable = None
        self.pipeline_renders = 0  # renders that went through Textual's pipeline (tests)

    def _drawn(self) -> tuple[Hashable, Hashable, ScrollBarRender] | None:
        """What the bar would draw now: its look (all but the thumb), the thumb, and the
        renderer; None when it cannot tell (no caching)."""
        if not self.size.area:
            return None
        bar = self.render()
        if not isinstance(bar, ScrollBarRender) or type(bar) is not ScrollBarRender:
            return None  # a custom renderer may draw from anything
        width, height = self.size
        size = height if bar.vertical else width
        cells = len(bar.VERTICAL_BARS if bar.vertical else bar.HORIZONTAL_BARS)
        try:
            thumb = thumb_eighths(size, bar.virtual_size, bar.window_size, bar.position, cells)
        except ZeroDivisionError:
            return None
        look = (self.size, bar.thickness, bar.vertical, bar.style, self.visual_style,
                self.background_colors, tuple(self.get_line_filters()), self.opacity,
                self.app.ansi_theme, self.app.native_ansi_color)
        return look, thumb, bar

    def _segments(self, bar: ScrollBarRender) -> list[Segment] | None:
        """One segment per row, as `ScrollBarRender.__rich_console__` draws a vertical bar."""
        if not bar.vertical or not isinstance(bar.style, Style) or any(self.styles.gutter):
            return None
        width, height = self.size
        rendered = bar.render_bar(
            size=height, virtual_size=bar.virtual_size, window_size=bar.window_size,
            position=bar.position, thickness=width, vertical=True,
            back_color=bar.style.bgcolor or Color.parse("#555555"),
            bar_color=bar.style.color or Color.parse("bright_magenta"))
        return rendered.segments

    def _from_rows(self, look: Hashable, segments: list[Segment] | None) -> list[Strip] | None:
        if segments is None or look != self._rows_look:
            return None
        rows = self._rows
        try:
            return [rows[segment.text, segment.style] for segment in segments]
        except KeyError:
            return None

    def _through_pipeline(self, look: Hashable, segments: list[Segment] | None) -> list[Strip]:
        self.pipeline_renders += 1
        strips = super().render_lines(Region(0, 0, *self.size))
        if segments is not None and len(segments) == len(strips):
            if look != self._rows_look:
                self._rows, self._rows_look = {}, look
            for segment, strip in zip(segments, strips):
                self._rows[segment.text, segment.style] = strip
        return strips

    def render_lines(self, crop: Region) -> list[Strip]:
        drawn = self._drawn()
        if drawn is None:
            self.pipeline_renders += 1
            return super().render_lines(crop)
        look, thumb, bar = drawn
        strips = self._kept.get((look, thumb))
        if strips is None:
            segments = self._segments(bar)
            strips = self._from_rows(look, segments) or self._through_pipeline(look, segments)
            if len(self._kept) >= KEPT:
                del self._kept[next(iter(self._kept))]
            self._kept[look, thumb] = strips
        lines = strips[crop.y:crop.bottom]
        if crop.x == 0 and crop.width == self.size.width:
            return lines
        return [line.crop(crop.x, crop.right) for line in lines]


def cached_vertical_scrollbar(widget: Widget) -> ScrollBar:
    """`Widget.vertical_scrollbar`'s body with a `CachedScrollBar`: a scrolling widget's
    `vertical_scrollbar` property returns this."""
    if widget._vertical_scrollbar is None:
        bar = CachedScrollBar(vertical=True, name="vertical",
                              thickness=widget.scrollbar_size_vertical)
        bar.display = False
        widget._vertical_scrollbar = bar
        widget.app._start_widget(widget, bar)
    return widget._vertical_scrollbar
