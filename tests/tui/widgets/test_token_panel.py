"""TokenPanel: context fill, per-call usage, session totals, the trend, and an honest cost."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Sparkline

from birdie_tui.tui.view_models import TokenView
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel


class PanelApp(App):
    def compose(self) -> ComposeResult:
        yield TokenPanel(id="tokens")


def _text(panel: TokenPanel, cls: str) -> str:
    return str(panel.query_one(f".tokens--{cls}").render())


async def test_known_window_calls_session_and_cost():
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        panel.show(TokenView(
            context_tokens=6_000, context_window=200_000, calls=[(5_400, 120), (6_000, 310)],
            session_in=48_200, session_out=2_100, per_turn=[900, 5_520, 6_310], cost_usd=0.01234,
        ))
        await pilot.pause()
        assert _text(panel, "context") == "Context  6,000 tok  (3% of 200k)"
        calls = _text(panel, "calls")
        assert "call 1  ↑5,400 ↓120" in calls and "call 2  ↑6,000 ↓310" in calls
        assert _text(panel, "session") == "Session  ↑48.2k ↓2,100"
        assert _text(panel, "cost") == "Estimated cost  $0.0123"
        sparkline = panel.query_one(Sparkline)
        assert list(sparkline.data) == [900.0, 5_520.0, 6_310.0]
        assert sparkline.display and sparkline.region.height > 0
        assert "3 turns" in _text(panel, "caption")


async def test_unknown_window_and_unknown_cost():
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        panel.show(TokenView(context_tokens=1_200, calls=[(1_200, 40)], cost_usd=None))
        await pilot.pause()
        assert _text(panel, "context").endswith("(window unknown)")
        cost = _text(panel, "cost")
        assert cost == "Estimated cost  unknown" and "$" not in cost


async def test_zero_cost_is_shown_as_zero_dollars():
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        panel.show(TokenView(context_tokens=10, context_window=8_192, cost_usd=0.0))
        await pilot.pause()
        assert _text(panel, "cost") == "Estimated cost  $0.00"
        assert "(<1% of 8,192)" in _text(panel, "context")


async def test_empty_session():
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        await pilot.pause()
        assert not panel.query_one(Sparkline).display
        assert "no turns yet" in _text(panel, "caption")
        assert "no model calls yet" in _text(panel, "calls")
        assert _text(panel, "cost") == "Estimated cost  unknown"
