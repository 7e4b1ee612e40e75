"""Choosing a model mid-session (`/model`): which vendors are usable here, what `/model X` means,
and the ProviderConfig to switch to. Pure functions over the environment; no SDK imports."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypedDict

from birdie_tui.providers.catalog import known_models, vendor_of
from birdie_tui.providers.config import (
    BASE_URL_VARS,
    DEFAULT_MODELS,
    KEY_VARS,
    OFFLINE_MODEL,
    OFFLINE_VENDOR,
    VENDORS,
    ConfigError,
    ProviderConfig,
    provider_json,
    resolve_provider_config,
)

# Vendors that serve models named by the user (deployments, local tags, custom endpoints):
# `/model NAME` stays on them instead of guessing a vendor from NAME.
_OWN_NAMES = ("azure", "ollama")


class _Tuning(TypedDict):
    """What a switch of vendor keeps from the current config."""
    temperature: float
    max_tokens: int | None
    timeout: float


@dataclass(frozen=True)
class VendorChoice:
    vendor: str
    models: list[str]
    current: bool = False


def _has(environ: Mapping[str, str], name: str) -> bool:
    return bool((environ.get(name) or "").strip())


def _usable(vendor: str, environ: Mapping[str, str], json_data: dict[str, Any]) -> bool:
    """A key (and, for Azure, an endpoint) is there, from the env or the JSON config."""
    if json_data.get("vendor") == vendor and (json_data.get("api_key") or vendor == "ollama"):
        return True
    if vendor == "ollama":
        return _has(environ, BASE_URL_VARS["ollama"])
    if vendor == "azure" and not _has(environ, "AZURE_OPENAI_ENDPOINT"):
        return False
    return any(_has(environ, name) for name in KEY_VARS.get(vendor, ()))


def choices(current: ProviderConfig, environ: Mapping[str, str] = os.environ,
            config_file: Path | None = None) -> list[VendorChoice]:
    """The current vendor, every vendor with a key present, and the offline model."""
    try:
        _, data = provider_json(environ, config_file)
    except ConfigError:
        data = {}
    out = []
    for vendor in VENDORS:
        is_current = vendor == current.vendor
        if not (is_current or vendor == OFFLINE_VENDOR or _usable(vendor, environ, data)):
            continue
        models = [m for m in (current.model if is_current else None, DEFAULT_MODELS.get(vendor),
                              *known_models(vendor)) if m]
        out.append(VendorChoice(vendor, list(dict.fromkeys(models)), is_current))
    return out


def parse_choice(arg: str, current: ProviderConfig) -> tuple[str, str | None]:
    """`/model` argument to (vendor, model or None): "vendor/model", "vendor", or "model"."""
    arg = arg.strip()
    head, sep, tail = arg.partition("/")
    if sep and head.lower() in VENDORS:
        return head.lower(), tail.strip() or None
    if arg.lower() in VENDORS:
        return arg.lower(), None
    guessed = vendor_of(arg)
    stays = current.vendor in _OWN_NAMES or (current.vendor == "openai" and current.base_url)
    if guessed and guessed != current.vendor and not stays:
        return guessed, arg
    return (current.vendor if current.vendor != OFFLINE_VENDOR else "openai"), arg


def config_for(vendor: str, model: str | None, *, current: ProviderConfig,
               environ: Mapping[str, str] = os.environ,
               config_file: Path | None = None) -> ProviderConfig:
    """The config to switch to; raises ConfigError (one line) if that vendor has no key."""
    vendor = vendor.strip().lower()
    if vendor not in VENDORS:
        raise ConfigError(f"unknown vendor {vendor!r} (expected one of: {', '.join(VENDORS)})")
    tuning: _Tuning = {"temperature": current.temperature, "max_tokens": current.max_tokens,
              "timeout": current.timeout}
    if vendor == current.vendor:  # same key and endpoint, another model
        return replace(current, model=model or current.model)
    if vendor == OFFLINE_VENDOR:
        return ProviderConfig(vendor=OFFLINE_VENDOR, model=OFFLINE_MODEL, **tuning)
    source, data = provider_json(environ, config_file)
    if data.get("vendor") == vendor:  # the JSON config describes this vendor: use it
        config = resolve_provider_config(environ, config_file)
        return replace(config, model=model or config.model)
    if vendor in KEY_VARS and not any(_has(environ, name) for name in KEY_VARS[vendor]):
        names = " or ".join(KEY_VARS[vendor])
        raise ConfigError(f"cannot switch to {vendor}: {names} is not set")
    env = {k: v for k, v in environ.items()
           if k not in ("LLM_PROVIDER_CONFIG", "LLM_VENDOR", "LLM_MODEL")}
    env["LLM_VENDOR"] = vendor
    if model:
        env["LLM_MODEL"] = model
    try:
        config = resolve_provider_config(env)
    except ConfigError as exc:
        raise ConfigError(f"cannot switch to {vendor}: {exc}") from None
    return replace(config, **tuning)
