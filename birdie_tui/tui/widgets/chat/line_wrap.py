"""A paragraph's lines, wrapped again only from its second-to-last line when text is appended.

A streamed paragraph gets new content at every flush: the old text with a few words more.
Textual wraps the whole text into lines each time (`Visual.to_strips`), ~0.5 ms for a
paragraph of a few lines, and at 15-20 flushes a second that was the largest part of a flush
(bench/RESULTS.md §40). Wrapping is greedy, so a line that ended before the old text's last two
lines ends in the same place however the text goes on: those lines are kept as they were drawn
(same characters, same spans up to their end) and only the rest is wrapped.

`wrap` draws exactly what `Visual.to_strips` draws for the content it accepts: one source line
(no newline, no tab), left-aligned and wrapped, nothing selected, no content alignment. It
mirrors Textual's `Content._wrap_and_format` and `Visual.to_strips` for that case (the version
is pinned; `tests/tui/chat/test_line_wrap.py` compares the two on random streams, so a change
upstream fails there). Anything else returns None and the caller wraps the usual way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich._wrap import divide_line
from textual._loop import loop_last
from textual.content import Content, _FormattedLine
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget

_SPACE = re.compile(r"\s")  # what rich's wrap counts as the space between words


@dataclass(frozen=True)
class Wrapped:
    """A content's lines and where each starts in its text."""

    content: Content
    starts: tuple[int, ...]
    lines: list[Strip]


def _spans_before(content: Content, cut: int) -> list[tuple[int, int, object]]:
    """The spans as they style the text before `cut`."""
    return [(span.start, min(span.end, cut), span.style)
            for span in content.spans if span.start < cut]


def _kept_lines(before: Wrapped | None, content: Content) -> int:
    """How many of `before`'s lines `content` leaves as they are (0: wrap it all).

    Wrapping starts again at the start of a line that began a word (whitespace before it, none
    at it): there the greedy wrap is where it would be at the start of the text. A line that
    starts inside a word folded across lines, or inside its trailing spaces, is not such a
    place, so an earlier line is taken."""
    if before is None:
        return 0
    old = before.content.plain
    keep = len(before.starts) - 2  # the old text's last two lines are wrapped again
    while keep > 0:
        cut = before.starts[keep]
        if _SPACE.match(old, cut - 1) and not _SPACE.match(old, cut):
            break
        keep -= 1
    if keep <= 0:
        return 0
    if len(content.plain) <= cut or not content.plain.startswith(old[:cut]):
        return 0
    if _spans_before(content, cut) != _spans_before(before.content, cut):
        return 0  # a span changed what the kept lines show (a closing "**", a link)
    return keep


def wrap(widget: Widget, content: Content, width: int, before: Wrapped | None) -> Wrapped | None:
    """`content`'s lines at `width` as `widget` draws them, reusing `before`'s where they
    cannot have changed; None if the content or the widget's styles are not the simple case."""
    plain = content.plain
    styles = widget.styles
    if (not width or "\n" in plain or "\t" in plain or widget.text_selection is not None
            or styles.text_align not in ("left", "start") or styles.text_wrap != "wrap"
            or styles.content_align != ("left", "top")):
        return None
    overflow = styles.text_overflow
    line_pad = styles.line_pad
    keep = _kept_lines(before, content)
    kept_starts: tuple[int, ...] = ()
    kept: list[Strip] = []
    start = 0
    if before is not None and keep:
        kept_starts, kept, start = before.starts[:keep], before.lines[:keep], before.starts[keep]
    breaks = [start + offset for offset in
              divide_line(plain[start:], width - line_pad * 2, fold=overflow == "fold")]
    starts = (*kept_starts, start, *breaks)
    pieces = content[start:].divide([offset - start for offset in breaks])
    ellipsis = overflow == "ellipsis"
    trimmed = [piece.truncate(width, ellipsis=ellipsis) if last
               else piece.rstrip().truncate(width, ellipsis=ellipsis)
               for last, piece in loop_last(pieces)]
    formatted = [_FormattedLine(widget._get_style, piece.rstrip_end(width).pad(line_pad, line_pad),
                                width, offset, 0, align=styles.text_align)
                 for piece, offset in zip(trimmed, starts[keep:])]
    formatted[-1].line_end = True
    style = widget.visual_style
    lines = [Strip(*line.to_strip(style)) for line in formatted]
    if widget.auto_links and not widget.is_container and not widget.screen._selecting:
        link_style = widget.link_style
        lines = [line._apply_link_style(link_style) for line in lines]
    return Wrapped(content, starts, [*kept, *lines])
