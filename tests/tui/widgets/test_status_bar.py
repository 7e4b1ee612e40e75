"""StatusBar: one line that fits 80 columns, title cut first, busy mark only while busy."""

from __future__ import annotations

from textual.app import App, ComposeResult

from birdie_tui.tui.widgets.status_bar import BUSY_TEXT, StatusBar

STATUS = dict(
    model="offline model", session_id="2026-01-01_1",
    title="my title about a rather long conversation on birds and their songs",
    context_tokens=1_234, context_window=40_000, session_in=5_600, session_out=1_234, busy=False,
)


class BarApp(App):
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")


def _line(app: App) -> str:
    strip = app.screen._compositor.render_strips()[0]
    return strip.text


async def test_fits_80_columns_and_truncates_the_title():
    """At 80 columns the bar is one line: the title is cut with an ellipsis, the figures kept."""
    app = BarApp()
    async with app.run_test(size=(80, 10)) as pilot:
        bar = app.query_one(StatusBar)
        bar.update_status(**STATUS)
        await pilot.pause()
        assert bar.region.height == 1
        line = _line(app).rstrip()
        assert line.startswith(" offline model │ 2026-01-01_1 · my title")
        assert "…" in line
        assert line.endswith("ctx 1.2k (3%) │ ↑5.6k ↓1.2k")
        assert len(line) <= 80
        assert BUSY_TEXT not in line


async def test_wide_terminal_shows_whole_title_and_busy_mark():
    """A wide bar shows the whole title, and the busy mark only while busy."""
    app = BarApp()
    async with app.run_test(size=(120, 10)) as pilot:
        bar = app.query_one(StatusBar)
        bar.update_status(**{**STATUS, "title": "birds and songs", "busy": True})
        await pilot.pause()
        line = _line(app).rstrip()
        assert line == (
            " offline model │ 2026-01-01_1 · birds and songs │ ctx 1.2k (3%) │ ↑5.6k ↓1.2k │ ● working"
        )
        bar.update_status(**{**STATUS, "title": "birds and songs", "busy": False})
        await pilot.pause()
        assert BUSY_TEXT not in _line(app)


async def test_no_title_and_unknown_window():
    """With no title and no context window, the title and the percentage are left out."""
    app = BarApp()
    async with app.run_test(size=(80, 10)) as pilot:
        bar = app.query_one(StatusBar)
        bar.update_status(**{**STATUS, "title": None, "context_window": None, "busy": True})
        await pilot.pause()
        line = _line(app).rstrip()
        assert line == " offline model │ 2026-01-01_1 │ ctx 1.2k │ ↑5.6k ↓1.2k │ ● working"


async def test_narrow_terminal_still_one_line():
    """At 50 columns with a long model name the bar fits, keeping the session id and context."""
    app = BarApp()
    async with app.run_test(size=(50, 10)) as pilot:
        bar = app.query_one(StatusBar)
        bar.update_status(**{**STATUS, "model": "anthropic:claude-sonnet-4-5-20250929", "busy": True})
        await pilot.pause()
        line = _line(app)
        assert len(line.rstrip()) <= 50
        assert "2026-01-01_1" in line and "ctx 1.2k" in line
        assert "…" in line


async def test_the_same_facts_again_repaint_nothing_and_new_ones_show():
    """The door tells the same status several times a turn: the same facts leave the bar
    alone (no repaint: it would draw the same cells); a changed one is drawn."""
    app = BarApp()
    async with app.run_test(size=(120, 10)) as pilot:
        bar = app.query_one(StatusBar)
        bar.update_status(**STATUS)
        await pilot.pause()
        asked: list[bool] = []
        refresh = bar.refresh
        bar.refresh = lambda *a, **k: asked.append(True) or refresh(*a, **k)  # type: ignore
        bar.update_status(**STATUS)
        assert asked == []
        bar.update_status(**{**STATUS, "session_out": 9_900})
        await pilot.pause()
        assert asked == [True]
        assert "↓9.9k" in _line(app)
