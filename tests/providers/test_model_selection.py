"""`/model` logic without a UI: which vendors are offered, what an argument means, and the
config a switch produces (keys from the environment or the JSON config, tuning carried over)."""

from __future__ import annotations

import json

import pytest

from birdie_tui.providers.catalog import known_models, vendor_of
from birdie_tui.providers.config import ConfigError, ProviderConfig
from birdie_tui.providers.selection import choices, config_for, parse_choice

OFFLINE = ProviderConfig(vendor="offline", model="birdie-offline")
OPENAI = ProviderConfig(vendor="openai", model="gpt-4o", api_key="k1", temperature=0.4,
                        max_tokens=900, timeout=30.0)


def test_choices_are_current_keyed_and_offline():
    """Model choices list the current vendor, vendors with complete keys, and offline."""
    env = {"MISTRAL_API_KEY": "m", "AZURE_OPENAI_API_KEY": "a"}  # azure lacks its endpoint
    found = {c.vendor: c for c in choices(OPENAI, env)}
    assert list(found) == ["openai", "mistral", "offline"]
    assert found["openai"].current and found["openai"].models[0] == "gpt-4o"
    assert "gpt-4o-mini" in found["openai"].models
    assert found["mistral"].models[0] == "mistral-large-latest"
    assert found["offline"].models == ["birdie-offline"]


def test_choices_include_ollama_and_json_configured_vendor():
    """Model choices include a JSON-configured vendor and Ollama when its URL is set."""
    env = {"OLLAMA_BASE_URL": "http://box:11434/v1",
           "LLM_PROVIDER_CONFIG": json.dumps({"vendor": "gemini", "api_key": "g"})}
    assert [c.vendor for c in choices(OFFLINE, env)] == ["gemini", "ollama", "offline"]


@pytest.mark.parametrize(("arg", "current", "expected"), [
    ("anthropic", OPENAI, ("anthropic", None)),
    ("anthropic/claude-haiku-4-5", OPENAI, ("anthropic", "claude-haiku-4-5")),
    ("gpt-4o-mini", OPENAI, ("openai", "gpt-4o-mini")),
    ("claude-opus-4-5", OPENAI, ("anthropic", "claude-opus-4-5")),
    ("gpt-4o", OFFLINE, ("openai", "gpt-4o")),
    ("my-finetune", OPENAI, ("openai", "my-finetune")),
    ("gpt-4o", ProviderConfig(vendor="azure", model="dep"), ("azure", "gpt-4o")),
    ("ollama/hf.co/org/model:Q4", OPENAI, ("ollama", "hf.co/org/model:Q4")),
    ("mistral-small-latest", ProviderConfig(vendor="ollama", model="x"),
     ("ollama", "mistral-small-latest")),
])
def test_parse_choice(arg, current, expected):
    """A /model argument resolves to vendor and model by prefix, model family or current vendor."""
    assert parse_choice(arg, current) == expected


def test_same_vendor_keeps_key_and_endpoint():
    """Switching model within a vendor keeps its key, endpoint and tuning."""
    new = config_for("openai", "gpt-4.1", current=OPENAI, environ={})
    assert (new.vendor, new.model, new.api_key, new.max_tokens) == ("openai", "gpt-4.1", "k1", 900)


def test_other_vendor_takes_its_key_from_env_and_keeps_tuning():
    """Switching vendor takes its key from the environment and keeps the tuning values."""
    env = {"ANTHROPIC_API_KEY": "ak", "LLM_VENDOR": "openai", "LLM_MODEL": "gpt-4o"}
    new = config_for("anthropic", None, current=OPENAI, environ=env)
    assert (new.vendor, new.model, new.api_key) == ("anthropic", "claude-sonnet-4-5", "ak")
    assert (new.temperature, new.max_tokens, new.timeout) == (0.4, 900, 30.0)


def test_vendor_described_by_json_config_uses_it(tmp_path):
    """Switching to the vendor of the JSON config file uses its key and base URL."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"vendor": "mistral", "api_key": "mk", "base_url": "http://m"}))
    new = config_for("mistral", "codestral-latest", current=OFFLINE, environ={},
                     config_file=path)
    assert (new.model, new.api_key, new.base_url) == ("codestral-latest", "mk", "http://m")


def test_missing_key_is_one_line():
    """Switching to a vendor lacking its key or endpoint, or an unknown one, fails in one line."""
    with pytest.raises(ConfigError, match="^cannot switch to mistral: MISTRAL_API_KEY is not set$"):
        config_for("mistral", None, current=OPENAI, environ={})
    with pytest.raises(ConfigError, match="cannot switch to azure: .*AZURE_OPENAI_ENDPOINT"):
        config_for("azure", "dep", current=OPENAI, environ={"AZURE_OPENAI_API_KEY": "a"})
    with pytest.raises(ConfigError, match="unknown vendor 'nope'"):
        config_for("nope", None, current=OPENAI, environ={})


def test_offline_needs_nothing():
    """Switching to the offline model needs no key."""
    assert config_for("offline", None, current=OPENAI, environ={}).vendor == "offline"


def test_catalog_vendor_families():
    """Model names map to their vendor family, and each vendor's known models are listed."""
    assert vendor_of("gpt-5-mini") == "openai" and vendor_of("o3") == "openai"
    assert vendor_of("claude-haiku-4-5-20251001") == "anthropic"
    assert vendor_of("codestral-latest") == "mistral" and vendor_of("gemini-2.5-pro") == "gemini"
    assert vendor_of("llama3.1") is None and vendor_of("octopus") is None
    assert "claude-opus-4-5" in known_models("anthropic") and known_models("azure") == []
    assert all(vendor_of(m) == "gemini" for m in known_models("gemini"))
