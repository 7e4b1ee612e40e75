"""What a chat model's configuration tells without calling it: its label, context window and
list price. A mixin for whatever holds the `provider` (`AgentParts`, which the engine and the
server's runtime build on)."""

from __future__ import annotations

from birdie_tui.providers.catalog import context_window, price_per_million
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.providers.factory import describe


class ProviderFacts:
    provider: ProviderConfig

    @property
    def model_label(self) -> str:
        return describe(self.provider)

    @property
    def context_window(self) -> int | None:
        return context_window(self.provider.vendor, self.provider.model or "")

    @property
    def price(self) -> tuple[float, float, float] | None:
        """USD per million tokens (input, output, cached input); None if unknown."""
        return price_per_million(self.provider.vendor, self.provider.model or "")


__all__ = ["ProviderFacts"]
