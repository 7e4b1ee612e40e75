"""Known model facts: context windows and list prices (USD per million tokens)."""

from __future__ import annotations

from birdie_tui.providers.config import OFFLINE_MODEL, OFFLINE_VENDOR

CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "claude-sonnet-4-5": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-opus-4": 200_000,
    "claude-haiku-4-5": 200_000,
    "mistral-large-latest": 128_000,
    "gemini-2.5-pro": 1_048_576,
    "gemini-2.5-flash": 1_048_576,
    OFFLINE_MODEL: 32_768,
}

# (input, output, cached input) per million tokens; list prices, may drift.
PRICES: dict[str, tuple[float, float, float]] = {
    "gpt-4o": (2.50, 10.00, 1.25),
    "gpt-4o-mini": (0.15, 0.60, 0.075),
    "gpt-4.1": (2.00, 8.00, 0.50),
    "gpt-4.1-mini": (0.40, 1.60, 0.10),
    "claude-sonnet-4-5": (3.00, 15.00, 0.30),
    "claude-sonnet-4": (3.00, 15.00, 0.30),
    "claude-opus-4": (15.00, 75.00, 1.50),
    "claude-opus-4-5": (5.00, 25.00, 0.50),
    "claude-haiku-4-5": (1.00, 5.00, 0.10),
    "gemini-2.5-pro": (1.25, 10.00, 0.3125),
    "gemini-2.5-flash": (0.30, 2.50, 0.075),
}
FREE = (0.0, 0.0, 0.0)
_SEPARATORS = ("-", "@", ":", ".")


def _lookup(table: dict[str, object], model: str | None) -> object | None:
    """Exact match, else the longest table key that prefixes ``model`` at a separator."""
    if not model:
        return None
    name = model.strip().lower().rsplit("/", 1)[-1]
    if name in table:
        return table[name]
    best = None
    for key in table:
        if name.startswith(key) and name[len(key)] in _SEPARATORS and (best is None or len(key) > len(best)):
            best = key
    return table[best] if best is not None else None


def context_window(vendor: str, model: str | None) -> int | None:
    """The model's context window in tokens, or None if unknown."""
    if vendor == OFFLINE_VENDOR:
        return CONTEXT_WINDOWS[OFFLINE_MODEL]
    found = _lookup(CONTEXT_WINDOWS, model)  # type: ignore[arg-type]
    return found if isinstance(found, int) else None


def price_per_million(vendor: str, model: str | None) -> tuple[float, float, float] | None:
    """(input, output, cached input) USD per million tokens; (0,0,0) for local models; None if unknown."""
    if vendor in (OFFLINE_VENDOR, "ollama"):
        return FREE
    found = _lookup(PRICES, model)  # type: ignore[arg-type]
    return found if isinstance(found, tuple) else None
