"""Pure number formatting shared by the panels and the status bar (no Textual imports)."""

from __future__ import annotations


def fmt_tokens(n: int, *, compact: bool = False) -> str:
    """Token counts readable at a glance: "1,234", "12.3k", "1.2M".

    `compact` switches to "k" from 1,000 on, for the one-line status bar.
    """
    n = int(n)
    sign = "-" if n < 0 else ""
    n = abs(n)
    if n < (1_000 if compact else 10_000):
        return f"{sign}{n:,}"
    if n < 1_000_000:
        k = n / 1_000
        # Round first so 999,960 becomes "1.0M" rather than "1000.0k".
        text = f"{k:.1f}" if round(k, 1) < 100 else f"{k:.0f}"
        if float(text) < 1_000:
            return f"{sign}{text}k"
    m = n / 1_000_000
    text = f"{m:.1f}" if round(m, 1) < 100 else f"{m:,.0f}"
    return f"{sign}{text}M"


def fmt_cost(usd: float | None) -> str:
    """A price, or "unknown" — an unknown price must never read as free."""
    if usd is None:
        return "unknown"
    if usd == 0:
        return "$0.00"
    if abs(usd) < 0.0001:
        return "<$0.0001" if usd > 0 else "-<$0.0001"
    if abs(usd) < 1:
        return f"${usd:.4f}" if usd > 0 else f"-${-usd:.4f}"
    return f"${usd:,.2f}" if usd > 0 else f"-${-usd:,.2f}"


def fmt_pct(tokens: int, window: int | None) -> str:
    """Share of the context window used: "3%", "<1%", or "?" when the window is unknown."""
    if not window or window <= 0:
        return "?"
    if tokens <= 0:
        return "0%"
    pct = tokens * 100 / window
    if pct < 1:
        return "<1%"
    return f"{pct:.0f}%"
