"""Builds the chat model for a ProviderConfig, importing vendor adapters (and their SDKs) lazily."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from birdie_tui.providers.config import OFFLINE_MODEL, OFFLINE_VENDOR, ConfigError, ProviderConfig
from birdie_tui.secrets import remember_config, scrub

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel

# vendor -> (module, class). An adapter class provides ``from_config(config)`` (or accepts
# ``config=``). Adding a vendor means adding its module; nothing here imports an SDK eagerly.
VENDOR_ADAPTERS: dict[str, tuple[str, str]] = {
    "openai": ("birdie_tui.providers.openai_compat", "OpenAICompatChatModel"),
    "azure": ("birdie_tui.providers.openai_compat", "OpenAICompatChatModel"),
    "gemini": ("birdie_tui.providers.openai_compat", "OpenAICompatChatModel"),
    "ollama": ("birdie_tui.providers.openai_compat", "OpenAICompatChatModel"),
    "anthropic": ("birdie_tui.providers.anthropic_chat", "AnthropicChatModel"),
    "mistral": ("birdie_tui.providers.mistral_chat", "MistralChatModel"),
    "acp": ("birdie_tui.providers.acp_chat", "ACPChatModel"),
}


def load_adapter(vendor: str) -> type:
    """Import a vendor's adapter class (and its SDK, ~1-2 s: callers may run this in a thread)."""
    if vendor == OFFLINE_VENDOR:
        from birdie_tui.providers.offline import OfflineChatModel

        return OfflineChatModel
    if vendor not in VENDOR_ADAPTERS:
        raise ConfigError(f"unknown vendor {vendor!r}")
    module_name, class_name = VENDOR_ADAPTERS[vendor]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ConfigError(f"vendor '{vendor}' is not available in this build yet") from None
        raise ConfigError(
            f"vendor '{vendor}' needs the '{exc.name}' package, which is not installed"
        ) from None
    cls: type | None = getattr(module, class_name, None)
    if cls is None:
        raise ConfigError(f"vendor '{vendor}' is not available in this build yet")
    return cls


def create_chat_model(config: ProviderConfig) -> BaseChatModel:
    """Return a LangChain chat model for ``config``; raises ConfigError if it cannot be built.
    Its key and base_url credentials are remembered, so they are scrubbed wherever they show."""
    remember_config(config)
    if config.vendor == OFFLINE_VENDOR:
        from birdie_tui.providers.offline import OfflineChatModel

        return OfflineChatModel(model_name=config.model or OFFLINE_MODEL)
    cls = load_adapter(config.vendor)
    factory = getattr(cls, "from_config", None)
    model: BaseChatModel = factory(config) if factory is not None else cls(config=config)  # the adapter seam
    return model


def describe(config: ProviderConfig) -> str:
    """A short human label for the status bar: 'offline model' or 'vendor · model' (scrubbed:
    it is shown, and stored with every turn)."""
    if config.vendor == OFFLINE_VENDOR:
        return "offline model"
    return scrub(f"{config.vendor} · {config.model or 'default model'}")
