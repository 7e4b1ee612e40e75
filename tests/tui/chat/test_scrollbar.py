"""The chat log's scrollbar: Textual's pixels, rendered through the pipeline only when they change."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Offset, Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widgets import Static

from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.scrollbar import CachedScrollBar, cached_vertical_scrollbar


class Cached(VerticalScroll):
    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return cached_vertical_scrollbar(self)


class TwoLogs(App[None]):
    """A stock log and a cached one, side by side, the same size and style."""

    CSS = "VerticalScroll { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield VerticalScroll(Static("", id="stock-text"), id="stock")
            yield Cached(Static("", id="cached-text"), id="cached")


def _drawn(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    """What a terminal shows: each cell run's text and style (rich compares styles without
    their link ids, which are new per render)."""
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


async def test_the_cached_bar_draws_what_textual_s_bar_draws():
    """Many sizes, positions, hover and grab: the cached bar's lines (and crops of them) equal
    the stock bar's."""
    app = TwoLogs()
    async with app.run_test(size=(60, 24)) as pilot:
        stock, cached = app.query_one("#stock"), app.query_one("#cached")
        assert isinstance(cached.vertical_scrollbar, CachedScrollBar)
        assert type(stock.vertical_scrollbar) is ScrollBar
        compared = 0
        for lines in (23, 24, 30, 47, 100, 333, 1000):
            text = "\n".join(f"line {n}" for n in range(lines))
            for log in (stock, cached):
                log.query_one(Static).update(text)
            await pilot.pause()
            for y in sorted({0, 1, 7, lines // 3, lines // 2, lines - 30, lines}):
                for state in ("plain", "hover", "grab"):
                    for log in (stock, cached):
                        log.scroll_to(y=max(0, y), animate=False, immediate=True)
                        log.vertical_scrollbar.mouse_over = state == "hover"
                        log.vertical_scrollbar.grabbed = Offset(0, 0) if state == "grab" else None
                    await pilot.pause()
                    a, b = stock.vertical_scrollbar, cached.vertical_scrollbar
                    assert a.size == b.size
                    for crop in (Region(0, 0, *a.size), Region(0, 3, a.size.width, 5),
                                 Region(1, 0, 1, a.size.height)):
                        assert _drawn(b.render_lines(crop)) == _drawn(a.render_lines(crop)), \
                            (lines, y, state, crop)
                        compared += 1
        assert compared > 150


async def test_an_unchanged_thumb_is_drawn_from_the_cache():
    """A log that grows at the bottom moves its bar every frame, but the thumb (in eighths of a
    cell) seldom: those frames render no line through Textual's pipeline."""
    app = TwoLogs()
    async with app.run_test(size=(60, 24)) as pilot:
        log = app.query_one("#cached", Cached)
        log.anchor()
        bar = log.vertical_scrollbar
        assert isinstance(bar, CachedScrollBar)
        whole = Region(0, 0, *bar.size)
        for lines in range(600, 640):
            log.query_one(Static).update("\n".join(f"line {n}" for n in range(lines)))
            await pilot.pause()
            assert log.scroll_y == log.max_scroll_y  # followed the bottom: the bar moved
            whole = Region(0, 0, *bar.size)
            bar.render_lines(whole)
        before = bar.pipeline_renders
        assert before <= 4, before  # 40 frames, a thumb that barely changed
        assert len(bar.render_lines(whole)) == whole.height
        assert bar.pipeline_renders == before


async def test_the_chat_log_uses_the_cached_bar():
    """The chat log makes its vertical bar a `CachedScrollBar`."""

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield ChatLog(id="chat")

    app = Host()
    async with app.run_test(size=(40, 10)):
        assert isinstance(app.query_one(ChatLog).vertical_scrollbar, CachedScrollBar)


async def test_a_moving_thumb_is_built_from_rows_drawn_before():
    """Early in a long reply the thumb's end moves an eighth almost every frame: those frames
    are built from rows the pipeline drew before (blank, thumb, the glyphs at its ends)."""
    app = TwoLogs()
    async with app.run_test(size=(60, 24)) as pilot:
        log = app.query_one("#cached", Cached)
        log.anchor()
        bar = log.vertical_scrollbar
        assert isinstance(bar, CachedScrollBar)
        thumbs = set()
        for lines in range(40, 120, 2):
            log.query_one(Static).update("\n".join(f"line {n}" for n in range(lines)))
            await pilot.pause()
            drawn = bar._drawn()
            assert drawn is not None
            thumbs.add(drawn[1])
            bar.render_lines(Region(0, 0, *bar.size))
        assert len(thumbs) >= 30  # a new thumb nearly every frame...
        assert bar.pipeline_renders <= 16, bar.pipeline_renders  # ...few rows never seen
