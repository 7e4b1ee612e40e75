"""`birdie-tui --print` with real provider configs (env vars, LLM_PROVIDER_CONFIG, --config)
against the loopback servers, and the one-line failures at start and mid-turn."""

from __future__ import annotations

import json

import pytest

from birdie_tui.cli import main

from .conftest import SECRET, VENDORS
from .loopback import Reply

pytestmark = pytest.mark.integration


def test_missing_key_is_one_line_at_start(monkeypatch, capsys):
    """Running --print with a vendor but no key exits 2 with one line on stderr."""
    monkeypatch.setenv("LLM_VENDOR", "anthropic")
    assert main(["--print", "hi"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "birdie-tui: LLM_VENDOR=anthropic but ANTHROPIC_API_KEY is not set\n"


def test_env_vars_configure_openai(server, monkeypatch, capsys):
    """Environment variables point --print at an OpenAI-compatible server and model."""
    server.script(VENDORS["openai"].reply(["Hello ", "from env"]))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("LLM_MODEL", "gpt-4.1-mini")
    assert main(["--print", "hi"]) == 0
    assert capsys.readouterr().out == "Hello from env\n"
    assert server.requests[0].body["model"] == "gpt-4.1-mini"


def test_inline_json_configures_mistral(server, monkeypatch, capsys):
    """LLM_PROVIDER_CONFIG configures Mistral's model and tuning for --print."""
    server.script(VENDORS["mistral"].reply(["Bonjour"]))
    monkeypatch.setenv("LLM_PROVIDER_CONFIG", json.dumps({
        "vendor": "mistral", "model": "mistral-small-latest", "api_key": SECRET,
        "base_url": server.url, "temperature": 0.2, "max_tokens": 64}))
    assert main(["--print", "hi", "--output-format", "stream-json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["type"] for e in events][-2:] == ["usage", "done"]
    assert events[-2] == {"type": "usage", "input_tokens": 12, "output_tokens": 5}
    body = server.requests[0].body
    assert (body["model"], body["temperature"], body["max_tokens"]) == (
        "mistral-small-latest", 0.2, 64)


def test_config_file_configures_anthropic(server, tmp_path, capsys):
    """A --config file configures Anthropic for --print."""
    server.script(VENDORS["anthropic"].reply(["From a file"]))
    path = tmp_path / "provider.json"
    path.write_text(json.dumps({"vendor": "anthropic", "model": "claude-haiku-4-5",
                                "api_key": SECRET, "base_url": server.url}))
    assert main(["--print", "hi", "--config", str(path)]) == 0
    assert capsys.readouterr().out == "From a file\n"


def test_provider_error_mid_turn_is_one_line(server, monkeypatch, capsys):
    """A provider auth error mid-turn exits 1 with one line that never shows the key."""
    server.script(Reply.error(401, {"error": {"message": f"Incorrect API key: {SECRET}"}}))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    assert main(["--print", "hi"]) == 1
    out, err = capsys.readouterr()
    assert err == "birdie-tui: openai: authentication failed (401) — check OPENAI_API_KEY\n"
    assert SECRET not in out + err


def test_paced_stream_json_keeps_the_event_contract(server, isolated_home):
    """`--print --output-format stream-json` against a fast-paced OpenAI-compatible stream:
    every line is still a contract event, tokens are merged (fewer than sent) and their text
    is the whole reply, once (a subprocess, as scripts run it)."""
    from tests.cli.helpers import run_cli
    from tests.cli.test_cli_print import check_contract

    words = [f"w{i} " for i in range(60)]
    reply = VENDORS["openai"].reply(words)
    reply.gap = 0.005
    server.script(reply)
    proc = run_cli(isolated_home, "--print", "hi", "--output-format", "stream-json", env={
        "OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": f"{server.url}/v1", "LLM_VENDOR": "openai"})
    events = check_contract(proc)
    tokens = [e["text"] for e in events if e["type"] == "token"]
    assert "".join(tokens) == "".join(words) and 2 <= len(tokens) < len(words)
    assert events[-1] == {"type": "done", "text": "".join(words)}
