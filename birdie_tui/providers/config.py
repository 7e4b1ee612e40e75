"""Provider configuration: resolves vendor, model and key from inline JSON, a config file or env vars."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OFFLINE_VENDOR = "offline"
OFFLINE_MODEL = "birdie-offline"
ACP_VENDOR = "acp"  # an Agent Client Protocol agent as the model: `model` is its command
VENDORS = ("openai", "azure", "anthropic", "mistral", "gemini", "ollama", ACP_VENDOR,
           OFFLINE_VENDOR)

# Vendors whose key env var, when set, picks them automatically (in this order).
AUTO_PICK_ORDER = ("anthropic", "openai", "mistral", "gemini", "azure")
DEFAULT_MODELS: dict[str, str | None] = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
    "mistral": "mistral-large-latest",
    "gemini": "gemini-2.5-flash",
    "ollama": "llama3.1",
    "azure": None,
    ACP_VENDOR: "claude-agent-acp",  # Birdie 0.15.1's default agent
    OFFLINE_VENDOR: OFFLINE_MODEL,
}
KEY_VARS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "azure": ("AZURE_OPENAI_API_KEY",),
}
BASE_URL_VARS: dict[str, str] = {
    "openai": "OPENAI_BASE_URL",
    "azure": "AZURE_OPENAI_ENDPOINT",
    "ollama": "OLLAMA_BASE_URL",
}
DEFAULT_BASE_URLS: dict[str, str] = {"ollama": "http://localhost:11434/v1"}
DEFAULT_API_VERSION = "2024-02-01"

_STRING_FIELDS = ("vendor", "model", "api_key", "base_url", "api_version")


class ConfigError(ValueError):
    """A provider configuration problem, with a one-line message that never contains a secret."""


@dataclass
class ProviderConfig:
    """Everything needed to build a chat model; ``api_key`` never appears in repr."""

    vendor: str
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    api_version: str = DEFAULT_API_VERSION
    timeout: float = 120.0
    # acp only: the agent's command line (`command` or `model`, then `args`), the variables
    # added to its environment (they may hold keys: not in repr) and its working folder.
    command: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None


def _env(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def _key_from_env(environ: Mapping[str, str], vendor: str) -> str | None:
    for name in KEY_VARS.get(vendor, ()):
        if value := _env(environ, name):
            return value
    return None


def _key_var_label(vendor: str) -> str:
    names = KEY_VARS[vendor]
    return names[0] if len(names) == 1 else f"{names[0]} (or {' / '.join(names[1:])})"


def _normalize_vendor(value: str, source: str) -> str:
    vendor = value.strip().lower()
    if vendor not in VENDORS:
        raise ConfigError(
            f"{source}: unknown vendor {vendor!r} (expected one of: {', '.join(VENDORS)})"
        )
    return vendor


def _load_json(text: str, source: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: must be a JSON object, got {type(data).__name__}")
    return data


def _read_file(path: Path) -> dict[str, Any]:
    source = f"--config {path}"
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read file ({exc.strerror or type(exc).__name__})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: file is not valid UTF-8") from None
    return _load_json(text, source)


def _validate(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Type-check known fields (dropping nulls and unknown keys) without echoing values."""
    clean: dict[str, Any] = {}
    for name in _STRING_FIELDS:
        value = data.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ConfigError(f"{source}: {name} must be a string, got {type(value).__name__}")
        if value.strip():
            clean[name] = value.strip()
    for name in ("temperature", "timeout"):
        value = data.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{source}: {name} must be a number, got {type(value).__name__}")
        clean[name] = float(value)
    if "temperature" in clean and not 0.0 <= clean["temperature"] <= 2.0:
        raise ConfigError(f"{source}: temperature must be between 0.0 and 2.0")
    if "timeout" in clean and clean["timeout"] <= 0:
        raise ConfigError(f"{source}: timeout must be greater than 0")
    value = data.get("max_tokens")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ConfigError(f"{source}: max_tokens must be a positive integer")
        clean["max_tokens"] = value
    if "vendor" in clean:
        clean["vendor"] = _normalize_vendor(clean["vendor"], source)
    clean.update(_validate_agent(data, source))
    return clean


def _validate_agent(data: dict[str, Any], source: str) -> dict[str, Any]:
    """The acp keys: `command` (a string or a list, as Birdie 0.15.1 reads it), `args` (a
    list), `env` (an object of strings), `cwd` (a string)."""
    clean: dict[str, Any] = {}
    command = data.get("command")
    if isinstance(command, str) and command.strip():
        clean["command"] = split_command(command)
    elif isinstance(command, list) and command and all(isinstance(p, str) for p in command):
        clean["command"] = tuple(command)
    elif command is not None and command != []:
        raise ConfigError(f"{source}: command must be a string or a list of strings")
    args = data.get("args")
    if args is not None:
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ConfigError(f"{source}: args must be a list of strings")
        clean["args"] = tuple(args)
    env = data.get("env")
    if env is not None:
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in env.items()):
            raise ConfigError(f"{source}: env must be an object of string values")
        clean["env"] = dict(env)
    cwd = data.get("cwd")
    if cwd is not None:
        if not isinstance(cwd, str):
            raise ConfigError(f"{source}: cwd must be a string, got {type(cwd).__name__}")
        if cwd.strip():
            clean["cwd"] = cwd.strip()
    return clean


def split_command(text: str) -> tuple[str, ...]:
    """An agent's command line from one string: a program found as it is (a path with spaces
    works, as in Birdie 0.15.1), else split as a shell would (`crow-cli acp`)."""
    text = text.strip()
    if shutil.which(text) is not None or " " not in text:
        return (text,)
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return (text,)


def _auto_pick(environ: Mapping[str, str]) -> str | None:
    for vendor in AUTO_PICK_ORDER:
        if not _key_from_env(environ, vendor):
            continue
        if vendor == "azure" and not _env(environ, "AZURE_OPENAI_ENDPOINT"):
            continue
        return vendor
    return None


def provider_json(
    environ: Mapping[str, str] = os.environ, config_file: Path | None = None
) -> tuple[str, dict[str, Any]]:
    """(source label, validated fields) of LLM_PROVIDER_CONFIG, else of --config FILE, else
    ("", {})."""
    inline = _env(environ, "LLM_PROVIDER_CONFIG")
    if inline is not None:
        source = "LLM_PROVIDER_CONFIG"
        return source, _validate(_load_json(inline, source), source)
    if config_file is not None:
        source = f"--config {config_file}"
        return source, _validate(_read_file(Path(config_file)), source)
    return "", {}


def resolve_provider_config(
    environ: Mapping[str, str] = os.environ, config_file: Path | None = None
) -> ProviderConfig:
    """Resolve the provider: LLM_PROVIDER_CONFIG > --config FILE > env vars > offline model."""
    source, data = provider_json(environ, config_file)

    env_vendor = _env(environ, "LLM_VENDOR")
    if "vendor" in data:
        vendor, vendor_source = data["vendor"], source
    elif env_vendor is not None:
        vendor, vendor_source = _normalize_vendor(env_vendor, "LLM_VENDOR"), "LLM_VENDOR"
    else:
        vendor, vendor_source = _auto_pick(environ), ""
    if vendor is None:  # nothing configured and no key found
        return ProviderConfig(vendor=OFFLINE_VENDOR, model=OFFLINE_MODEL, **_tuning(data))

    # LLM_MODEL belongs to the env-chosen vendor; a JSON file naming another vendor ignores it.
    env_model = _env(environ, "LLM_MODEL")
    if "vendor" in data and (env_vendor or "").strip().lower() != vendor:
        env_model = None
    model = data.get("model") or env_model
    if vendor == ACP_VENDOR and not model and data.get("command"):
        model = os.path.basename(data["command"][0])  # the label names the agent it runs
    if vendor == "azure":
        model = model or _env(environ, "AZURE_OPENAI_DEPLOYMENT")
    model = model or DEFAULT_MODELS[vendor]

    api_key = data.get("api_key") or _key_from_env(environ, vendor)
    base_url = data.get("base_url")
    if base_url is None and vendor in BASE_URL_VARS:
        base_url = _env(environ, BASE_URL_VARS[vendor])
    base_url = base_url or DEFAULT_BASE_URLS.get(vendor)
    api_version = data.get("api_version")
    if api_version is None and vendor == "azure":
        api_version = _env(environ, "AZURE_OPENAI_API_VERSION")

    _check_complete(vendor, vendor_source, source, model, api_key, base_url)
    return ProviderConfig(
        vendor=vendor,
        model=model,
        api_key=api_key,
        base_url=base_url,
        api_version=api_version or DEFAULT_API_VERSION,
        **_tuning(data),
        **(_agent(data, model) if vendor == ACP_VENDOR else {}),
    )


def _agent(data: dict[str, Any], model: str | None) -> dict[str, Any]:
    """The acp fields: `command` wins over `model` (0.15.1 takes the model as the command)."""
    command = data.get("command") or split_command(model or "")
    return {"command": (*command, *data.get("args", ())), "env": dict(data.get("env", {})),
            "cwd": data.get("cwd")}


def _tuning(data: dict[str, Any]) -> dict[str, Any]:
    return {k: data[k] for k in ("temperature", "max_tokens", "timeout") if k in data}


def _check_complete(
    vendor: str,
    vendor_source: str,
    json_source: str,
    model: str | None,
    api_key: str | None,
    base_url: str | None,
) -> None:
    """Raise a one-line ConfigError when the chosen vendor lacks its key, endpoint or model."""
    if vendor_source == "LLM_VENDOR":
        chosen = f"LLM_VENDOR={vendor}"
    elif vendor_source:
        chosen = f"{vendor_source} sets vendor {vendor}"
    else:
        chosen = f"vendor {vendor} (picked from its key)"
    if vendor in KEY_VARS and not api_key:
        where = " has no api_key and" if json_source else ""
        if json_source and vendor_source == "LLM_VENDOR":
            where = f" ({json_source} has no api_key) and"
        raise ConfigError(f"{chosen} but{where} {_key_var_label(vendor)} is not set")
    if vendor == "azure" and not base_url:
        raise ConfigError(f"{chosen} but no endpoint: set AZURE_OPENAI_ENDPOINT or base_url")
    if vendor == "azure" and not model:
        raise ConfigError(
            f"{chosen} but no deployment: set LLM_MODEL, AZURE_OPENAI_DEPLOYMENT or model"
        )
