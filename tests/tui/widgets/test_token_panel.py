"""TokenPanel: context fill, per-call usage, session totals, the trend, and an honest cost."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Sparkline

from birdie_tui.service.rows import CallUsage, TokenLedger
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel


class PanelApp(App):
    def compose(self) -> ComposeResult:
        yield TokenPanel(id="tokens")


def _text(panel: TokenPanel, cls: str) -> str:
    return str(panel.query_one(f".tokens--{cls}").render())


async def test_known_window_calls_session_and_cost():
    """With a known window: context fill, per-call usage, session totals, cost and the trend."""
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        panel.show(TokenLedger(
            context_window=200_000, calls=(CallUsage(5_400, 120), CallUsage(6_000, 310)),
            session_in=48_200, session_out=2_100, per_turn=(900, 5_520, 6_310), cost_usd=0.01234,
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
    """An unknown window and cost read as unknown, never as a percentage or a dollar figure."""
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        panel.show(TokenLedger(calls=(CallUsage(1_200, 40),), cost_usd=None))
        await pilot.pause()
        assert _text(panel, "context").endswith("(window unknown)")
        cost = _text(panel, "cost")
        assert cost == "Estimated cost  unknown" and "$" not in cost


async def test_zero_cost_is_shown_as_zero_dollars():
    """A zero cost shows as $0.00, not unknown, and a tiny context fill as '<1%'."""
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        panel.show(TokenLedger(calls=(CallUsage(10, 1),), context_window=8_192, cost_usd=0.0))
        await pilot.pause()
        assert _text(panel, "cost") == "Estimated cost  $0.00"
        assert "(<1% of 8,192)" in _text(panel, "context")


async def test_empty_session():
    """Before any call the panel hides the trend and says there are no turns or calls yet."""
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        await pilot.pause()
        assert not panel.query_one(Sparkline).display
        assert "no turns yet" in _text(panel, "caption")
        assert "no model calls yet" in _text(panel, "calls")
        assert _text(panel, "cost") == "Estimated cost  unknown"


async def test_cached_input_is_shown_per_call_and_for_the_session():
    """Prompt-cache reads are priced lower, so the panel says how much of the input they were."""
    app = PanelApp()
    async with app.run_test(size=(60, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        panel.show(TokenLedger(calls=(CallUsage(5_000, 100, cached=4_000),), session_in=5_000,
                               session_out=100, session_cached=4_000, cost_usd=0.001))
        await pilot.pause()
        assert "call 1  ↑5,000 ↓100  4,000 cached" in _text(panel, "calls")
        assert _text(panel, "session") == "Session  ↑5,000 ↓100  4,000 cached"


async def test_the_same_ledger_again_updates_no_label_and_a_new_one_shows():
    """The screen shows the ledger several times a turn, mostly unchanged: an equal ledger
    updates none of the seven labels (each update a layout pass); a changed one is drawn."""
    app = PanelApp()
    async with app.run_test(size=(50, 30)) as pilot:
        panel = app.query_one(TokenPanel)
        ledger = TokenLedger(context_window=200_000, calls=(CallUsage(5_400, 120),),
                             session_in=5_400, session_out=120, per_turn=(5_520,))
        panel.show(ledger)
        await pilot.pause()
        updates: list[str] = []
        for label in panel.query(".tokens--session, .tokens--context"):
            update = label.update  # type: ignore[attr-defined]
            label.update = lambda c, _u=update: updates.append("x") or _u(c)  # type: ignore
        panel.show(TokenLedger(context_window=200_000, calls=(CallUsage(5_400, 120),),
                               session_in=5_400, session_out=120, per_turn=(5_520,)))
        assert updates == []
        panel.show(TokenLedger(context_window=200_000, calls=(CallUsage(5_400, 120),),
                               session_in=9_000, session_out=120, per_turn=(5_520,)))
        await pilot.pause()
        assert len(updates) == 2
        assert _text(panel, "session") == "Session  ↑9,000 ↓120"
