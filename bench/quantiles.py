"""The quantile the benches report (p50, p95): linear between the closest ranks."""

from __future__ import annotations


def pct(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` (NaN for none)."""
    if not values:
        return float("nan")
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)
