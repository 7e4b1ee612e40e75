"""Model factory (lazy vendor adapters) and the model catalog."""

from __future__ import annotations

import subprocess
import sys

import pytest

from birdie_tui.providers.catalog import context_window, price_per_million
from birdie_tui.providers.config import ConfigError, ProviderConfig
from birdie_tui.providers.factory import VENDOR_ADAPTERS, create_chat_model, describe
from birdie_tui.providers.offline import OfflineChatModel


def test_offline_model_from_config() -> None:
    """The factory builds the offline model for the offline vendor."""
    model = create_chat_model(ProviderConfig(vendor="offline", model="birdie-offline"))
    assert isinstance(model, OfflineChatModel) and model.model_name == "birdie-offline"
    assert create_chat_model(ProviderConfig(vendor="offline")).model_name == "birdie-offline"


@pytest.mark.parametrize("vendor", sorted(VENDOR_ADAPTERS))
def test_missing_vendor_adapter_is_a_clear_error(vendor: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A vendor whose adapter cannot be imported is a one-line 'not available' error."""
    monkeypatch.setitem(VENDOR_ADAPTERS, vendor, (f"birdie_tui.providers._missing_{vendor}", "X"))
    with pytest.raises(ConfigError, match=f"^vendor '{vendor}' is not available in this build yet$"):
        create_chat_model(ProviderConfig(vendor=vendor, model="m", api_key="secret"))


def test_adapter_seam_uses_from_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The factory builds a vendor's model through its adapter's from_config."""
    monkeypatch.setitem(VENDOR_ADAPTERS, "openai", (__name__, "FakeAdapter"))
    model = create_chat_model(ProviderConfig(vendor="openai", model="gpt-4o", api_key="k"))
    assert isinstance(model, OfflineChatModel) and model.model_name == "fake:gpt-4o"


class FakeAdapter:
    @classmethod
    def from_config(cls, config: ProviderConfig) -> OfflineChatModel:
        return OfflineChatModel(model_name=f"fake:{config.model}")


def test_describe() -> None:
    """The provider description reads 'offline model' or 'vendor · model'."""
    assert describe(ProviderConfig(vendor="offline", model="birdie-offline")) == "offline model"
    assert describe(ProviderConfig(vendor="anthropic", model="claude-sonnet-4-5")) == "anthropic · claude-sonnet-4-5"


def test_context_window() -> None:
    """Context windows are known for listed and dated models, None for unknown ones."""
    assert context_window("openai", "gpt-4o") == 128_000
    assert context_window("openai", "gpt-4o-mini-2024-07-18") == 128_000
    assert context_window("openai", "gpt-4.1-2025-04-14") == 1_047_576
    assert context_window("anthropic", "claude-sonnet-4-5-20250929") == 200_000
    assert context_window("gemini", "gemini-2.5-pro") == 1_048_576
    assert context_window("offline", "birdie-offline") == 32_768
    assert context_window("openai", "gpt-4otter") is None
    assert context_window("ollama", "llama3.1") is None
    assert context_window("openai", None) is None


def test_prices() -> None:
    """Prices per million tokens are known for listed and dated models, None for unknown ones."""
    assert price_per_million("offline", "birdie-offline") == (0.0, 0.0, 0.0)
    assert price_per_million("openai", "gpt-4o-mini") == (0.15, 0.60, 0.075)
    assert price_per_million("openai", "gpt-4o-2024-08-06") == (2.50, 10.00, 1.25)
    assert price_per_million("anthropic", "claude-opus-4-5-20251101") == (5.00, 25.00, 0.50)
    assert price_per_million("openai", "some-new-model") is None


def test_importing_providers_does_not_import_sdks_or_textual() -> None:
    """Importing the providers package and its core modules loads no vendor SDK or Textual."""
    code = (
        "import sys, birdie_tui.providers as p\n"
        "from birdie_tui.providers import config, factory, catalog, tokens, offline\n"
        "p.resolve_provider_config({}); p.OfflineChatModel\n"
        "bad = [m for m in ('openai', 'anthropic', 'mistralai', 'textual') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_config_module_is_light() -> None:
    """Importing the provider config module loads neither LangChain nor LangGraph."""
    code = (
        "import sys, birdie_tui.providers.config\n"
        "heavy = [m for m in ('langchain_core', 'langgraph') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
