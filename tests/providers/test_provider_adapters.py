"""Catalog lookups for the vendors' current models, and the import rules of the adapters
(no SDK at import of birdie_tui; each adapter module imports only its own SDK)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from birdie_tui.providers.catalog import context_window, default_max_output, price_per_million


@pytest.mark.parametrize(("vendor", "model", "window", "price"), [
    ("openai", "gpt-5-mini-2025-08-07", 400_000, (0.25, 2.00, 0.025)),
    ("openai", "o4-mini", 200_000, (1.10, 4.40, 0.275)),
    ("anthropic", "claude-haiku-4-5-20251001", 200_000, (1.00, 5.00, 0.10)),
    ("anthropic", "claude-3-5-haiku-latest", 200_000, (0.80, 4.00, 0.08)),
    ("mistral", "mistral-small-2506", 128_000, (0.10, 0.30, 0.10)),
    ("mistral", "codestral-latest", 256_000, (0.30, 0.90, 0.30)),
    ("gemini", "gemini-2.5-flash-preview-05-20", 1_048_576, (0.30, 2.50, 0.03)),
    ("gemini", "models/gemini-2.5-pro", 1_048_576, (1.25, 10.00, 0.125)),
])
def test_known_models(vendor, model, window, price):
    """Dated and prefixed model names get their family's context window and prices."""
    assert context_window(vendor, model) == window
    assert price_per_million(vendor, model) == price


def test_a_newer_model_is_unknown_not_its_older_family():
    """A newer model is unknown rather than priced as its older family; Ollama is free."""
    # "claude-opus-4-6" is not a snapshot of "claude-opus-4": its price is unknown, not 15/75.
    assert price_per_million("anthropic", "claude-opus-4-6") is None
    assert context_window("anthropic", "claude-opus-4-6") is None
    assert price_per_million("openai", "gpt-4o-audio-preview") is None
    assert price_per_million("ollama", "llama3.1:8b") == (0.0, 0.0, 0.0)


def test_default_max_output():
    """Claude models get the default max output of their generation."""
    assert default_max_output("claude-3-haiku-20240307") == 4096
    assert default_max_output("claude-3-5-sonnet-latest") == 8192
    assert default_max_output("claude-haiku-4-5") == 16384


SDKS = ("openai", "anthropic", "mistralai")


def _imported_after(statement: str) -> list[str]:
    code = (f"import sys\n{statement}\n"
            f"print(','.join(m for m in {SDKS!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_engine_and_shared_modules_import_no_sdk():
    """The engine and shared provider modules import no vendor SDK."""
    assert _imported_after("import birdie_tui.agent.engine, birdie_tui.providers.selection, "
                           "birdie_tui.providers.errors, birdie_tui.providers.sdk_base, "
                           "birdie_tui.tui.cmds.models, birdie_tui.service.local") == []


@pytest.mark.parametrize(("module", "sdk"), [("openai_compat", "openai"),
                                             ("anthropic_chat", "anthropic"),
                                             ("mistral_chat", "mistralai")])
def test_each_adapter_imports_only_its_sdk(module, sdk):
    """Each vendor adapter imports its own SDK and no other."""
    assert _imported_after(f"import birdie_tui.providers.{module}") == [sdk]
