"""Provider config resolution: precedence, keys from env, auto-pick, offline fallback, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from birdie_tui.providers.config import ConfigError, ProviderConfig, resolve_provider_config

SECRET = "sk-SECRET-do-not-leak-1234"


def write(tmp_path: Path, data: object, name: str = "cfg.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_nothing_configured_is_offline() -> None:
    """With nothing configured the provider is the offline model."""
    cfg = resolve_provider_config({})
    assert (cfg.vendor, cfg.model, cfg.api_key) == ("offline", "birdie-offline", None)


def test_llm_model_alone_does_not_change_offline_model() -> None:
    """LLM_MODEL alone does not rename the offline model."""
    assert resolve_provider_config({"LLM_MODEL": "gpt-4o"}).model == "birdie-offline"


@pytest.mark.parametrize(
    ("env", "vendor", "model"),
    [
        ({"OPENAI_API_KEY": "k"}, "openai", "gpt-4o-mini"),
        ({"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}, "anthropic", "claude-sonnet-4-5"),
        ({"MISTRAL_API_KEY": "k", "GEMINI_API_KEY": "k"}, "mistral", "mistral-large-latest"),
        ({"GOOGLE_API_KEY": "k"}, "gemini", "gemini-2.5-flash"),
        (
            {"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_ENDPOINT": "https://x", "AZURE_OPENAI_DEPLOYMENT": "dep"},
            "azure",
            "dep",
        ),
    ],
)
def test_auto_pick_by_present_key(env: dict[str, str], vendor: str, model: str) -> None:
    """Without LLM_VENDOR the vendor is picked by the API key present, in priority order."""
    cfg = resolve_provider_config(env)
    assert (cfg.vendor, cfg.model, cfg.api_key) == (vendor, model, "k")


def test_empty_key_counts_as_missing() -> None:
    """A blank API key counts as missing."""
    assert resolve_provider_config({"OPENAI_API_KEY": "  "}).vendor == "offline"


def test_env_vendor_model_and_key() -> None:
    """LLM_VENDOR (any case), LLM_MODEL, the key and base URL come from the environment."""
    cfg = resolve_provider_config(
        {"LLM_VENDOR": "OpenAI", "LLM_MODEL": "gpt-4o", "OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": "http://p"}
    )
    assert (cfg.vendor, cfg.model, cfg.api_key, cfg.base_url) == ("openai", "gpt-4o", SECRET, "http://p")


def test_explicit_vendor_without_key_is_a_clear_error() -> None:
    """LLM_VENDOR without that vendor's key is a one-line error naming the variable."""
    with pytest.raises(ConfigError) as info:
        resolve_provider_config({"LLM_VENDOR": "openai", "ANTHROPIC_API_KEY": "k"})
    assert str(info.value) == "LLM_VENDOR=openai but OPENAI_API_KEY is not set"
    assert "\n" not in str(info.value)


def test_gemini_missing_key_mentions_both_variables() -> None:
    """A missing Gemini key error names both GEMINI_API_KEY and GOOGLE_API_KEY."""
    with pytest.raises(ConfigError, match="GEMINI_API_KEY .*GOOGLE_API_KEY"):
        resolve_provider_config({"LLM_VENDOR": "gemini"})


def test_ollama_and_offline_need_no_key() -> None:
    """Ollama and offline need no key; OLLAMA_BASE_URL overrides Ollama's default URL."""
    cfg = resolve_provider_config({"LLM_VENDOR": "ollama"})
    assert (cfg.vendor, cfg.model, cfg.base_url) == ("ollama", "llama3.1", "http://localhost:11434/v1")
    cfg = resolve_provider_config({"LLM_VENDOR": "ollama", "OLLAMA_BASE_URL": "http://box:1/v1"})
    assert cfg.base_url == "http://box:1/v1"
    assert resolve_provider_config({"LLM_VENDOR": "offline", "OPENAI_API_KEY": "k"}).vendor == "offline"


def test_azure_from_env() -> None:
    """Azure takes its key, endpoint, API version and deployment from the environment."""
    env = {
        "LLM_VENDOR": "azure",
        "AZURE_OPENAI_API_KEY": SECRET,
        "AZURE_OPENAI_ENDPOINT": "https://r.openai.azure.com/",
        "AZURE_OPENAI_API_VERSION": "2024-10-21",
        "AZURE_OPENAI_DEPLOYMENT": "my-dep",
    }
    cfg = resolve_provider_config(env)
    assert (cfg.model, cfg.base_url, cfg.api_version) == ("my-dep", "https://r.openai.azure.com/", "2024-10-21")
    assert resolve_provider_config({**env, "LLM_MODEL": "other"}).model == "other"


@pytest.mark.parametrize("missing", ["AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_DEPLOYMENT"])
def test_azure_incomplete_is_an_error(missing: str) -> None:
    """Azure without its endpoint or deployment is an error that never shows the key."""
    env = {
        "LLM_VENDOR": "azure",
        "AZURE_OPENAI_API_KEY": SECRET,
        "AZURE_OPENAI_ENDPOINT": "https://r",
        "AZURE_OPENAI_DEPLOYMENT": "d",
    }
    del env[missing]
    with pytest.raises(ConfigError, match=missing) as info:
        resolve_provider_config(env)
    assert SECRET not in str(info.value)


def test_precedence_inline_beats_file_beats_env(tmp_path: Path) -> None:
    """Inline JSON config beats the config file, which beats the environment."""
    env = {"LLM_VENDOR": "mistral", "MISTRAL_API_KEY": "m", "OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}
    path = write(tmp_path, {"vendor": "openai", "model": "gpt-4o", "temperature": 0.5})
    assert resolve_provider_config(env).vendor == "mistral"
    from_file = resolve_provider_config(env, path)
    assert (from_file.vendor, from_file.model, from_file.api_key, from_file.temperature) == (
        "openai", "gpt-4o", "o", 0.5,
    )
    inline = {**env, "LLM_PROVIDER_CONFIG": json.dumps({"vendor": "anthropic", "max_tokens": 99})}
    cfg = resolve_provider_config(inline, path)
    assert (cfg.vendor, cfg.model, cfg.api_key, cfg.max_tokens, cfg.temperature) == (
        "anthropic", "claude-sonnet-4-5", "a", 99, 0.0,
    )


def test_json_api_key_wins_over_env_and_env_fills_missing_key(tmp_path: Path) -> None:
    """A key in the JSON config wins over the environment, which fills a missing one."""
    env = {"ANTHROPIC_API_KEY": "from-env"}
    with_key = write(tmp_path, {"vendor": "anthropic", "api_key": "from-file"})
    without_key = write(tmp_path, {"vendor": "anthropic", "model": "claude-opus-4"}, "b.json")
    assert resolve_provider_config(env, with_key).api_key == "from-file"
    cfg = resolve_provider_config(env, without_key)
    assert (cfg.api_key, cfg.model) == ("from-env", "claude-opus-4")


def test_json_vendor_missing_key_error_names_source(tmp_path: Path) -> None:
    """A missing key for a vendor chosen by --config names that file in one line."""
    path = write(tmp_path, {"vendor": "openai"})
    with pytest.raises(ConfigError) as info:
        resolve_provider_config({}, path)
    message = str(info.value)
    assert f"--config {path}" in message and "OPENAI_API_KEY" in message and "\n" not in message


def test_json_without_vendor_uses_env_vendor_and_llm_model() -> None:
    """JSON config without a vendor uses LLM_VENDOR and LLM_MODEL."""
    env = {
        "LLM_PROVIDER_CONFIG": '{"temperature": 1}',
        "LLM_VENDOR": "openai",
        "LLM_MODEL": "gpt-4.1",
        "OPENAI_API_KEY": "k",
    }
    cfg = resolve_provider_config(env)
    assert (cfg.vendor, cfg.model, cfg.temperature) == ("openai", "gpt-4.1", 1.0)


def test_llm_model_ignored_when_json_picks_another_vendor() -> None:
    """LLM_MODEL is ignored when the JSON config picks another vendor."""
    env = {
        "LLM_PROVIDER_CONFIG": '{"vendor": "anthropic", "api_key": "x"}',
        "LLM_VENDOR": "openai",
        "LLM_MODEL": "gpt-4o",
    }
    assert resolve_provider_config(env).model == "claude-sonnet-4-5"


def test_unknown_keys_ignored_and_nulls_mean_default() -> None:
    """Unknown JSON keys are ignored and null values mean the default."""
    raw = '{"vendor": "ollama", "model": null, "flavour": "mint", "timeout": 5}'
    cfg = resolve_provider_config({"LLM_PROVIDER_CONFIG": raw})
    assert (cfg.model, cfg.timeout) == ("llama3.1", 5.0)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ('{"vendor": "openai",', "invalid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"vendor": "skynet"}', "unknown vendor 'skynet'"),
        ('{"vendor": "ollama", "temperature": "hot"}', "temperature must be a number"),
        ('{"vendor": "ollama", "temperature": true}', "temperature must be a number"),
        ('{"vendor": "ollama", "temperature": 3}', "between 0.0 and 2.0"),
        ('{"vendor": "ollama", "max_tokens": 1.5}', "max_tokens must be a positive integer"),
        ('{"vendor": "ollama", "timeout": 0}', "timeout must be greater than 0"),
        ('{"vendor": 3}', "vendor must be a string"),
    ],
)
def test_bad_inline_json(raw: str, fragment: str) -> None:
    """Invalid LLM_PROVIDER_CONFIG gives a one-line error naming the variable and the problem."""
    with pytest.raises(ConfigError) as info:
        resolve_provider_config({"LLM_PROVIDER_CONFIG": raw})
    message = str(info.value)
    assert message.startswith("LLM_PROVIDER_CONFIG: ") and fragment in message and "\n" not in message


def test_bad_file(tmp_path: Path) -> None:
    """An invalid, missing or directory --config file is a clear ConfigError."""
    bad = write(tmp_path, "{not json")
    with pytest.raises(ConfigError, match=r"^--config .*cfg\.json: invalid JSON"):
        resolve_provider_config({}, bad)
    with pytest.raises(ConfigError, match="cannot read file"):
        resolve_provider_config({}, tmp_path / "missing.json")
    with pytest.raises(ConfigError, match="cannot read file"):
        resolve_provider_config({}, tmp_path)  # a directory


def test_unknown_env_vendor() -> None:
    """An unknown LLM_VENDOR is an error naming the variable."""
    with pytest.raises(ConfigError, match="^LLM_VENDOR: unknown vendor 'langchain'"):
        resolve_provider_config({"LLM_VENDOR": "langchain"})


def test_api_key_never_leaks(tmp_path: Path) -> None:
    """The API key never appears in the config's repr or in any config error."""
    cfg = resolve_provider_config({"LLM_PROVIDER_CONFIG": json.dumps({"vendor": "openai", "api_key": SECRET})})
    assert cfg.api_key == SECRET
    assert SECRET not in repr(cfg) and SECRET not in str(cfg)
    # a secret in a broken or mistyped config never reaches the error message
    broken = [
        '{"vendor": "openai", "api_key": "' + SECRET + '",',
        '{"vendor": "openai", "api_key": "' + SECRET + '", "temperature": "x"}',
        '{"vendor": "skynet", "api_key": "' + SECRET + '"}',
        '{"vendor": "azure", "api_key": "' + SECRET + '"}',
    ]
    for raw in broken:
        with pytest.raises(ConfigError) as info:
            resolve_provider_config({"LLM_PROVIDER_CONFIG": raw})
        assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    path = write(tmp_path, '{"api_key": "' + SECRET + '" oops}')
    with pytest.raises(ConfigError) as info:
        resolve_provider_config({}, path)
    assert SECRET not in str(info.value)


def test_dataclass_defaults() -> None:
    """ProviderConfig defaults for temperature, max_tokens, api_version and timeout."""
    cfg = ProviderConfig(vendor="openai")
    assert (cfg.temperature, cfg.max_tokens, cfg.api_version, cfg.timeout) == (0.0, None, "2024-02-01", 120.0)
