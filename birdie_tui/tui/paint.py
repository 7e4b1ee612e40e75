"""A paint that does only the work the screen shows: two cuts in Textual's compositor.

1. Rows already covered are not rendered. `Compositor._render_chops` walks the visible widgets
   front to back and keeps, per line and cut, the first strip it gets. Every container behind
   the chat (the screen, its rows and columns, the log, a reply and its Markdown) still rendered
   all its rows, and had them divided at every cut, only for them to be thrown away: ~6 widgets
   × 34 rows a paint. `render_chops` renders a widget only on the rows where a chop that the
   update can show is still empty (in contiguous runs). What a widget skips stays dirty in its
   own caches (`StylesCache` forgets a line's dirtiness only when it renders it), so a later
   paint of those rows renders them afresh. Upstream: in `_render_chops`, ask each widget for its
   lines run by run, after the filled chops are known (the loop that fills them is unchanged).

2. A cursor move only where the cursor is not already. `ChopsUpdate.render_segments` writes
   `Control.move_to(x, y)` before every chop (~217 a paint, each a `Control` object). After a
   chop the cursor stands where it ended; when the next chop on the line starts there, the move
   is dropped (`JoinedChopsUpdate`). Only after text whose width every terminal agrees with
   Rich on (`_SURE_WIDTH`): after an emoji or a CJK character the terminal's cursor may not be
   where Rich counts, and a move puts it back, as Textual's does. Upstream: the same few lines in
   `render_segments` (remember where the last chop ended; skip the move when it matches).
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from textual._compositor import ChopsUpdate
from textual.geometry import Region
from textual.strip import Strip

if TYPE_CHECKING:
    from textual._compositor import Compositor
    from textual.widget import Widget

Chops = list[dict[int, Strip | None]]

# What a chop's escape sequence may hold for the cursor to stand surely at its end: escape
# codes, printable ASCII, Latin-1 to IPA (no combining marks), dashes, quotes and bullets, box
# drawing and block elements. Anything else (emoji, CJK, combining marks) gets a move after it.
_SURE_WIDTH = re.compile("[\x1b\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2500-\u259f]*")


def _open_runs(rows: range, shown_cuts: Callable[[int], Sequence[int]], chops: Chops,
               is_rendered_line: Callable[[int], bool]) -> Iterator[tuple[int, int]]:
    """The runs [start, end) of the update's lines in `rows` on which one of the cuts
    `shown_cuts(y)` has no strip yet."""
    start = None
    for y in rows:
        line = chops[y]
        if is_rendered_line(y) and any(line[cut] is None for cut in shown_cuts(y)):
            if start is None:
                start = y
        elif start is not None:
            yield start, y
            start = None
    if start is not None:
        yield start, rows.stop


def render_chops(compositor: Compositor, crop: Region,
                 is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
    """`Compositor._render_chops`, asking a widget only for rows that still show something."""
    cuts = compositor.cuts
    chops: Chops = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    crop_x, crop_right = crop.x, crop.right
    for widget, (region, clip) in compositor.visible_widgets.items():
        visible = region.intersection(clip)
        if not visible.overlaps(crop):
            continue
        first_cut, last_cut = visible.column_span
        low, high = max(first_cut, crop_x), min(last_cut, crop_right)

        def shown_cuts(y: int) -> Sequence[int]:
            """The cuts of the chops on line y the widget fills and the update can show."""
            line_cuts = cuts[y]
            return line_cuts[bisect_right(line_cuts, low) - 1:bisect_left(line_cuts, high)]

        rows = range(max(visible.y, crop.y), min(visible.bottom, crop.bottom))
        for start, end in _open_runs(rows, shown_cuts, chops, is_rendered_line):
            part = Region(visible.x, start, visible.width, end - start)
            _fill(chops, cuts, part, _render(widget, region, part))
    return chops  # type: ignore[return-value]  # every shown chop is filled, as Textual's


def _render(widget: Widget, region: Region, part: Region) -> list[Strip]:
    return widget.render_lines(part.translate(-region.offset))


def _fill(chops: Chops, cuts: list[list[int]], part: Region, strips: list[Strip]) -> None:
    """Textual's loop: cut each line at the cuts in its span; the first strip for a cut wins."""
    render_x = part.x
    first_cut, last_cut = part.column_span
    for y, strip in zip(part.line_range, strips):
        line = chops[y]
        final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
        cut_strips = strip.divide([cut - render_x for cut in final_cuts[1:]])
        for cut, cut_strip in zip(final_cuts, cut_strips):
            if line.get(cut) is None:
                line[cut] = cut_strip


def _move_to(x: int, y: int) -> str:
    return f"\x1b[{y + 1};{x + 1}H"  # what `Control.move_to(x, y)` writes


class JoinedChopsUpdate(ChopsUpdate):
    """A `ChopsUpdate` that moves the cursor only where it does not stand already."""

    def render_segments(self, console: Console) -> str:
        sequences: list[str] = []
        append = sequences.append
        chops, chop_ends = self.chops, self.chop_ends
        last_y = self.spans[-1][0]
        sure = _SURE_WIDTH.fullmatch
        for y, x1, x2 in self.spans:
            at = -1  # where the cursor stands on this line, if known
            for end, (x, strip) in zip(chop_ends[y], chops[y].items()):
                if strip is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):
                    strip = strip.crop(0, min(end, x2) - x)
                if x != at:
                    append(_move_to(x, y))
                text = strip.render(console)
                append(text)
                at = x + strip.cell_length if sure(text) else -1
            if y != last_y:
                append("\n")
        return "".join(sequences)
