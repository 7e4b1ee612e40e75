"""Known model facts: context windows, list prices (USD per million tokens), output defaults.

Names match exactly or by prefix at a separator, so dated snapshots ("gpt-4o-2024-08-06",
"claude-sonnet-4-5-20250929") find their family. Unknown models give None ("unknown" cost).
"""

from __future__ import annotations

import re

from birdie_tui.providers.config import OFFLINE_MODEL, OFFLINE_VENDOR

_M = 1_048_576  # Gemini's and GPT-4.1's "1M"

CONTEXT_WINDOWS: dict[str, int] = {
    # OpenAI
    "gpt-4o": 128_000, "gpt-4o-mini": 128_000, "gpt-4-turbo": 128_000,
    "gpt-4.1": 1_047_576, "gpt-4.1-mini": 1_047_576, "gpt-4.1-nano": 1_047_576,
    "gpt-5": 400_000, "gpt-5-mini": 400_000, "gpt-5-nano": 400_000, "gpt-5.1": 400_000,
    "o1": 200_000, "o3": 200_000, "o3-mini": 200_000, "o4-mini": 200_000,
    # Anthropic
    "claude-opus-4-5": 200_000, "claude-opus-4-1": 200_000, "claude-opus-4": 200_000,
    "claude-sonnet-4-5": 200_000, "claude-sonnet-4": 200_000, "claude-haiku-4-5": 200_000,
    "claude-3-7-sonnet": 200_000, "claude-3-5-sonnet": 200_000, "claude-3-5-haiku": 200_000,
    "claude-3-opus": 200_000, "claude-3-haiku": 200_000,
    # Mistral
    "mistral-large-latest": 256_000, "mistral-large-2512": 256_000,
    "mistral-large-2411": 128_000, "mistral-medium-latest": 128_000, "mistral-medium": 128_000,
    "mistral-small-latest": 128_000, "mistral-small": 128_000, "codestral-latest": 256_000,
    "codestral": 256_000, "devstral-medium": 128_000, "devstral-small": 128_000,
    "magistral-medium": 128_000, "magistral-small": 128_000, "ministral-8b": 128_000,
    "ministral-3b": 128_000, "open-mistral-nemo": 128_000, "pixtral-large": 128_000,
    # Gemini
    "gemini-3-pro-preview": _M, "gemini-2.5-pro": _M, "gemini-2.5-flash": _M,
    "gemini-2.5-flash-lite": _M, "gemini-2.0-flash": _M, "gemini-2.0-flash-lite": _M,
    OFFLINE_MODEL: 32_768,
}

# (input, output, cached input) per million tokens; list prices, may drift. Where a vendor has
# no cache discount the cached price equals the input price.
PRICES: dict[str, tuple[float, float, float]] = {
    "gpt-4o": (2.50, 10.00, 1.25), "gpt-4o-mini": (0.15, 0.60, 0.075),
    "gpt-4-turbo": (10.00, 30.00, 10.00),
    "gpt-4.1": (2.00, 8.00, 0.50), "gpt-4.1-mini": (0.40, 1.60, 0.10),
    "gpt-4.1-nano": (0.10, 0.40, 0.025),
    "gpt-5": (1.25, 10.00, 0.125), "gpt-5.1": (1.25, 10.00, 0.125),
    "gpt-5-mini": (0.25, 2.00, 0.025), "gpt-5-nano": (0.05, 0.40, 0.005),
    "o1": (15.00, 60.00, 7.50), "o3": (2.00, 8.00, 0.50), "o3-mini": (1.10, 4.40, 0.55),
    "o4-mini": (1.10, 4.40, 0.275),
    "claude-opus-4-5": (5.00, 25.00, 0.50), "claude-opus-4-1": (15.00, 75.00, 1.50),
    "claude-opus-4": (15.00, 75.00, 1.50), "claude-sonnet-4-5": (3.00, 15.00, 0.30),
    "claude-sonnet-4": (3.00, 15.00, 0.30), "claude-haiku-4-5": (1.00, 5.00, 0.10),
    "claude-3-7-sonnet": (3.00, 15.00, 0.30), "claude-3-5-sonnet": (3.00, 15.00, 0.30),
    "claude-3-5-haiku": (0.80, 4.00, 0.08), "claude-3-opus": (15.00, 75.00, 1.50),
    "claude-3-haiku": (0.25, 1.25, 0.03),
    "mistral-large-latest": (0.50, 1.50, 0.50), "mistral-large-2512": (0.50, 1.50, 0.50),
    "mistral-large-2411": (2.00, 6.00, 2.00), "mistral-medium-latest": (0.40, 2.00, 0.40),
    "mistral-medium": (0.40, 2.00, 0.40), "mistral-small-latest": (0.10, 0.30, 0.10),
    "mistral-small": (0.10, 0.30, 0.10), "codestral-latest": (0.30, 0.90, 0.30),
    "codestral": (0.30, 0.90, 0.30), "devstral-medium": (0.40, 2.00, 0.40),
    "devstral-small": (0.10, 0.30, 0.10), "magistral-medium": (2.00, 5.00, 2.00),
    "magistral-small": (0.50, 1.50, 0.50), "ministral-8b": (0.10, 0.10, 0.10),
    "ministral-3b": (0.04, 0.04, 0.04), "open-mistral-nemo": (0.15, 0.15, 0.15),
    "gemini-3-pro-preview": (2.00, 12.00, 0.20), "gemini-2.5-pro": (1.25, 10.00, 0.125),
    "gemini-2.5-flash": (0.30, 2.50, 0.03), "gemini-2.5-flash-lite": (0.10, 0.40, 0.01),
    "gemini-2.0-flash": (0.10, 0.40, 0.025), "gemini-2.0-flash-lite": (0.075, 0.30, 0.075),
}
FREE = (0.0, 0.0, 0.0)
_SNAPSHOT = re.compile(r"[-@:.](\d{4}|latest|preview|exp)")
_VENDOR_PREFIXES = (
    ("openai", re.compile(r"^(gpt-|chatgpt-|o\d(-|$))")),
    ("anthropic", re.compile(r"^claude-")),
    ("mistral", re.compile(r"^(mistral-|open-mistral|codestral|devstral|magistral|ministral|"
                           r"pixtral)")),
    ("gemini", re.compile(r"^gemini-")),
)


def _lookup(table: dict[str, object], model: str | None) -> object | None:
    """Exact match, else the longest table key that ``model`` extends with a snapshot suffix
    (a date, "latest", "preview"): "claude-opus-4-6" is a new model, not "claude-opus-4"."""
    if not model:
        return None
    name = model.strip().lower().rsplit("/", 1)[-1]
    if name in table:
        return table[name]
    best = None
    for key in table:
        if name.startswith(key) and _SNAPSHOT.match(name[len(key):]) and (
                best is None or len(key) > len(best)):
            best = key
    return table[best] if best is not None else None


def context_window(vendor: str, model: str | None) -> int | None:
    """The model's context window in tokens, or None if unknown."""
    if vendor == OFFLINE_VENDOR:
        return CONTEXT_WINDOWS[OFFLINE_MODEL]
    found = _lookup(CONTEXT_WINDOWS, model)  # type: ignore[arg-type]
    return found if isinstance(found, int) else None


def price_per_million(vendor: str, model: str | None) -> tuple[float, float, float] | None:
    """(input, output, cached input) USD per million tokens; (0,0,0) for local models; None if
    unknown."""
    if vendor in (OFFLINE_VENDOR, "ollama"):
        return FREE
    found = _lookup(PRICES, model)  # type: ignore[arg-type]
    return found if isinstance(found, tuple) else None


def vendor_of(model: str | None) -> str | None:
    """The vendor a model name belongs to ("gpt-4o" -> openai), or None if it is not obvious."""
    name = (model or "").strip().lower().rsplit("/", 1)[-1]
    return next((vendor for vendor, pattern in _VENDOR_PREFIXES if pattern.match(name)), None)


def known_models(vendor: str) -> list[str]:
    """Catalog models of a vendor (for `/model` and the palette); dated aliases left out."""
    if vendor == "azure":  # Azure serves deployments named by the user
        return []
    return sorted(name for name in CONTEXT_WINDOWS
                  if vendor_of(name) == vendor and not re.search(r"-\d{4}$", name))


def default_max_output(model: str | None) -> int:
    """A sane max_tokens for APIs that require one (Anthropic): the older models cap lower."""
    name = (model or "").lower()
    if re.match(r"claude-3-(haiku|opus|sonnet)", name):
        return 4096
    if name.startswith(("claude-3-5", "claude-3-7")):
        return 8192
    return 16384
