"""The settled screen's paint does only the work the screen shows, and shows what Textual's does:
rows covered by widgets in front are not rendered, cursor moves where the cursor already stands
are not written. Each shortcut is compared with Textual's stock compositor on the same layout."""

from __future__ import annotations

import random
import re
from typing import Any

import pyte
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, Compositor
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown, Static

from birdie_tui.tui.layout_pass import SettledScreen
from birdie_tui.tui.paint import JoinedChopsUpdate

from .test_layout_pass import Host

MARKDOWN = """# Birds

A paragraph with **bold** text, `code`, a bullet • and an em dash — long enough to wrap.

- one
- two, with a [link](https://example.com)

| a | table |
|---|-------|
| 1 | 2     |
"""

CSS = """
Screen { layers: base above; }
Horizontal { height: 1fr; }
#side { width: 12; border: round $accent; }
#log { border-left: solid $primary; padding: 0 1; }
#status { height: 1; dock: bottom; }
#toast { layer: above; offset: 20 3; width: 24; height: 4; border: heavy red; }
"""


class Layered(Screen[None]):
    """A panel beside a scrolled log of Markdown and lines, a status line, and a box on a layer
    above that covers parts of both."""

    DEFAULT_CSS = CSS

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("\n".join(f"side {n}" for n in range(30)), id="side")
            with VerticalScroll(id="log"):
                yield Markdown(MARKDOWN)
                yield Static("\n".join(f"line {n} ✓ 漢字" for n in range(20)), id="tail")
        yield Static("status", id="status")
        yield Static("a toast\nover both", id="toast")


class SettledLayered(SettledScreen[None]):
    DEFAULT_CSS = CSS
    compose = Layered.compose


def _stock_chops(compositor: Compositor, crop: Region, lines: set[int]) -> Any:
    cls = compositor.__class__
    compositor.__class__ = Compositor  # Textual's own, on the same layout
    try:
        return compositor._render_chops(crop, lines.__contains__)
    finally:
        compositor.__class__ = cls


def _shown(chops: Any, compositor: Compositor, regions: list[Region]) -> list[Any]:
    """The strips of the chops an update of `regions` writes text of (a chop that starts
    where a span ends writes only a cursor move in Textual; it shows nothing)."""
    shown = []
    for y, x1, x2 in Compositor._regions_to_spans(regions):
        for x, end in zip(compositor.cuts[y], compositor.cuts[y][1:]):
            if x < x2 and end > x1:
                strip = chops[y][x]
                shown.append((y, x, None if strip is None else list(strip)))
    return shown


def _random_updates(rng: random.Random, width: int, height: int) -> list[list[Region]]:
    updates = [[Region(0, 0, width, height)]]
    for _ in range(60):
        regions = []
        for _ in range(rng.randint(1, 3)):
            x, y = rng.randrange(width), rng.randrange(height)
            regions.append(Region(x, y, rng.randint(1, width - x), rng.randint(1, height - y)))
        updates.append(regions)
    return updates


async def test_a_paint_skipping_covered_rows_shows_what_textual_shows():
    """For full updates and random partial ones (one to three regions anywhere), every chop the
    update writes holds, from the settled screen's compositor, Textual's segments."""
    app = Host(SettledLayered)
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        app.screen.query_one("#log", VerticalScroll).scroll_to(y=5, animate=False)
        await pilot.pause()
        compositor = app.screen._compositor
        width, height = compositor.size
        for regions in _random_updates(random.Random(7), width, height):
            crop = Region.from_union(regions)
            lines = {y for y, _, _ in Compositor._regions_to_spans(regions)}
            ours = compositor._render_chops(crop, lines.__contains__)
            stock = _stock_chops(compositor, crop, lines)
            assert _shown(ours, compositor, regions) == _shown(stock, compositor, regions), \
                regions


async def _rows_for_a_log_update(screen: type[Screen[None]]) -> dict[str, int]:
    rows: dict[str, int] = {}
    original = Widget.render_lines

    def counting(self: Widget, crop: Region) -> list[Strip]:
        name = self.id or type(self).__name__
        rows[name] = rows.get(name, 0) + crop.height
        return original(self, crop)

    app = Host(screen)
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        Widget.render_lines = counting  # type: ignore[method-assign]
        try:
            app.screen.refresh(Region(0, 0, 60, 15))  # the panel's and the log's rows
            await pilot.pause()
        finally:
            Widget.render_lines = original  # type: ignore[method-assign]
    return rows


async def test_the_containers_behind_are_not_rendered_where_their_children_cover_them():
    """Textual renders the screen, the row and the Markdown's list and table under their
    children at every row of an update; the settled screen renders none of them (their children
    fill every cell), and the widgets that show a cell (a border, a gap) as Textual does."""
    stock = await _rows_for_a_log_update(Layered)
    ours = await _rows_for_a_log_update(SettledLayered)
    assert stock["Layered"] >= 15 and stock["Horizontal"] >= 15  # what this cuts
    for covered in ("SettledLayered", "Horizontal", "MarkdownBulletList", "MarkdownTable"):
        assert ours.get(covered, 0) == 0, ours
        assert stock.get(covered.replace("Settled", ""), 0) > 0, stock
    for shown in ("side", "toast", "log", "Markdown", "ScrollBar", "MarkdownParagraph"):
        assert ours[shown] == stock[shown] > 0, (shown, ours, stock)


class Numbered(Widget):
    """Five lines reading `<text> <row>`; refreshed by region, so its style cache keeps the
    rows the refresh does not name."""

    DEFAULT_CSS = "Numbered { width: 20; height: 5; }"
    text = "old"

    def render_line(self, y: int) -> Strip:
        return Strip([Segment(f"{self.text} {y}".ljust(self.size.width), Style())])


COVER_CSS = """
Screen { layers: base above; }
#cover { layer: above; width: 30; height: 3; background: red; }
"""


class Covered(Screen[None]):
    DEFAULT_CSS = COVER_CSS

    def compose(self) -> ComposeResult:
        yield Numbered(id="numbered")
        yield Static("cover", id="cover")


class SettledCovered(SettledScreen[None]):
    DEFAULT_CSS = COVER_CSS
    compose = Covered.compose


class Terminal(Host):
    """Plays every update the app would write into a pyte screen: what the terminal shows."""

    def __init__(self, screen: type[Screen[Any]]) -> None:
        super().__init__(screen)
        self.terminal = pyte.Screen(40, 8)
        self.stream = pyte.Stream(self.terminal)

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        if renderable is not None and hasattr(renderable, "render_segments"):
            self.stream.feed(renderable.render_segments(self.console))
        super()._display(screen, renderable)


async def _uncovered_after_a_covered_change(screen: type[Screen[None]]) -> list[str]:
    app = Terminal(screen)
    async with app.run_test(size=(40, 8)) as pilot:
        cover = app.screen.query_one("#cover")
        cover.display = False
        await pilot.pause()
        cover.display = True  # rows 0-2 of the lines, painted once, now covered
        await pilot.pause()
        numbered = app.screen.query_one(Numbered)
        numbered.text = "new"
        numbered.refresh(Region(0, 0, 20, 5))  # all five rows dirty; three of them covered
        await pilot.pause()
        cover.display = False  # a partial update of the rows the cover leaves
        await pilot.pause()
        await pilot.pause()
    return [line.rstrip() for line in app.terminal.display]


async def test_rows_skipped_under_a_cover_show_their_new_content_when_uncovered():
    """A change under a cover is not rendered there; when the cover goes, the partial update
    renders those rows afresh (their cached lines are still dirty), never the old text."""
    stock = await _uncovered_after_a_covered_change(Covered)
    ours = await _uncovered_after_a_covered_change(SettledCovered)
    assert stock[:5] == [f"new {y}" for y in range(5)]
    assert ours == stock


# -- fewer cursor moves --------------------------------------------------------------------

# Rich counts a regional indicator one cell, terminals (and pyte) two: after it the cursor is
# not where Rich counts, so a move must follow it.
PIECES = ["a", "bc", "Birds ", "─", "│", "•", "—", "é", "漢", "字", "🙂", "\U0001f1e6",
          " "]
MOVE = re.compile(r"\x1b\[\d+;\d+H")
STYLES = [Style(), Style(bold=True), Style(color="red"), Style(bgcolor="blue"),
          Style(color="#10ff20", bgcolor="#202020", underline=True)]


def _random_strip(rng: random.Random, width: int) -> Strip:
    segments, used = [], 0
    target = width if rng.random() < 0.85 else rng.randint(0, width)  # some end short
    while used < target:
        text = rng.choice(PIECES)
        if used + Segment(text).cell_length > target:
            text = " " * (target - used)
        segments.append(Segment(text, rng.choice(STYLES)))
        used += Segment(text).cell_length
    return Strip(segments)


def _random_update(rng: random.Random, width: int, height: int) -> ChopsUpdate:
    chops, ends = [], []
    for _ in range(height):
        cuts = sorted({0, width, *rng.sample(range(1, width), rng.randint(0, 8))})
        chops.append({x: None if rng.random() < 0.1 else _random_strip(rng, end - x)
                      for x, end in zip(cuts, cuts[1:])})
        ends.append(cuts[1:])
    regions = []
    for _ in range(rng.randint(1, 4)):
        x, y = rng.randrange(width), rng.randrange(height)
        regions.append(Region(x, y, rng.randint(1, width - x), rng.randint(1, height - y)))
    return ChopsUpdate(chops, list(Compositor._regions_to_spans(regions)), ends)


def _played(sequence: str, width: int, height: int) -> list[list[tuple[Any, ...]]]:
    screen = pyte.Screen(width, height)
    stream = pyte.Stream(screen)
    stream.feed("".join(f"\x1b[{y + 1};1H" + "#" * width for y in range(height)))  # old frame
    stream.feed(sequence)
    return [[(c.data, c.fg, c.bg, c.bold, c.underscore) for c in
             (screen.buffer[y][x] for x in range(width))] for y in range(height)]


def _moves(sequence: str) -> int:
    return len(MOVE.findall(sequence))


def test_joined_chops_draw_the_screen_textual_s_chops_draw_with_fewer_moves():
    """On 300 random chop layouts (wide and box characters, one whose width terminals count
    apart from Rich, short strips, empty chops, spans that cut chops), the bytes with the
    needless cursor moves dropped draw, in a terminal, the screen Textual's bytes draw."""
    console = Console(color_system="truecolor", force_terminal=True, width=40)
    rng = random.Random(11)
    saved = 0
    for _ in range(300):
        stock = _random_update(rng, 40, 6)
        ours = JoinedChopsUpdate(stock.chops, stock.spans, stock.chop_ends)
        stock_bytes, our_bytes = stock.render_segments(console), ours.render_segments(console)
        assert _played(our_bytes, 40, 6) == _played(stock_bytes, 40, 6), (stock_bytes, our_bytes)
        saved += _moves(stock_bytes) - _moves(our_bytes)
    assert saved > 300  # moves were dropped


async def test_the_settled_screen_writes_a_real_frame_with_fewer_moves_and_the_same_cells():
    """A frame of the layered screen, from the settled screen's compositor: a joined update,
    fewer cursor moves than Textual's for the same chops, and the same screen in a terminal."""
    app = Host(SettledLayered)
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        compositor._dirty_regions.update({Region(0, 0, 60, 16), Region(30, 2, 10, 5)})
        ours = compositor.render_partial_update()
    assert isinstance(ours, JoinedChopsUpdate)
    stock = ChopsUpdate(ours.chops, ours.spans, ours.chop_ends)
    stock_bytes, our_bytes = stock.render_segments(app.console), ours.render_segments(app.console)
    assert _played(our_bytes, 60, 16) == _played(stock_bytes, 60, 16)
    assert _moves(our_bytes) < _moves(stock_bytes) / 2
