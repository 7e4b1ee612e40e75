"""Chat-model providers: config resolution, the offline model, vendor adapters (all imported lazily)."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ProviderConfig": "config",
    "ConfigError": "config",
    "resolve_provider_config": "config",
    "create_chat_model": "factory",
    "describe": "factory",
    "OfflineChatModel": "offline",
    "context_window": "catalog",
    "price_per_million": "catalog",
    "estimate_tokens": "tokens",
    "estimate_message_tokens": "tokens",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import public names on first use so that importing the package stays cheap."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
