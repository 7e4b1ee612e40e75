"""The number formats every panel shares."""

from __future__ import annotations

import pytest

from birdie_tui.tui.widgets.format import fmt_cost, fmt_pct, fmt_tokens


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0"), (999, "999"), (1_234, "1,234"), (9_999, "9,999"), (10_000, "10.0k"),
        (12_345, "12.3k"), (123_456, "123k"), (999_960, "1.0M"), (1_234_567, "1.2M"),
        (123_456_789, "123M"), (-1_500, "-1,500"),
    ],
)
def test_fmt_tokens(n, text):
    """Token counts get separators below 10k, then k and M with a decimal below 100."""
    assert fmt_tokens(n) == text


@pytest.mark.parametrize(("n", "text"), [(999, "999"), (1_000, "1.0k"), (1_234, "1.2k"), (5_600, "5.6k")])
def test_fmt_tokens_compact(n, text):
    """Compact token counts switch to one-decimal thousands from 1,000."""
    assert fmt_tokens(n, compact=True) == text


@pytest.mark.parametrize(
    ("usd", "text"),
    [
        (None, "unknown"), (0.0, "$0.00"), (0, "$0.00"), (0.00001, "<$0.0001"),
        (0.0012345, "$0.0012"), (0.5, "$0.5000"), (1.234, "$1.23"), (1234.5, "$1,234.50"),
    ],
)
def test_fmt_cost(usd, text):
    """Costs read 'unknown' for None, two decimals from $1, four below, '<$0.0001' for dust."""
    assert fmt_cost(usd) == text


def test_unknown_cost_never_reads_as_zero():
    """An unknown cost has no 0 in it, so it cannot be misread as free."""
    assert "0" not in fmt_cost(None)


@pytest.mark.parametrize(
    ("tokens", "window", "text"),
    [
        (1_200, 40_000, "3%"), (0, 40_000, "0%"), (10, 200_000, "<1%"), (200_000, 200_000, "100%"),
        (250_000, 200_000, "125%"), (1_000, None, "?"), (1_000, 0, "?"),
    ],
)
def test_fmt_pct(tokens, window, text):
    """Context fill is a whole percent, '<1%' for a sliver, can pass 100%, '?' without a window."""
    assert fmt_pct(tokens, window) == text
