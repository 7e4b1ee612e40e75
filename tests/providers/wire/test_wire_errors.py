"""Provider failures become one readable line: through the real SDKs (context too long, network
down, timeout) and by classification of the SDKs' exception shapes."""

from __future__ import annotations

import socket

import pytest
from langchain_core.messages import HumanMessage

from birdie_tui.providers.errors import ProviderError, classify_error, redact
from birdie_tui.providers.factory import load_adapter

from .conftest import SECRET, VENDORS
from .loopback import Reply

pytestmark = pytest.mark.integration

CONTEXT_MESSAGES = {
    "openai": "This model's maximum context length is 128000 tokens. However, your messages "
              "resulted in 250000 tokens.",
    "anthropic": "prompt is too long: 250000 tokens > 200000 maximum",
    "mistral": "Prompt contains 250000 tokens, too large for model with 131072 maximum "
               "context length",
}


def model_for(vendor, config, **overrides):
    return load_adapter(vendor.name).from_config(config, **overrides)


async def failure(model) -> str:
    with pytest.raises(ProviderError) as info:
        await model.ainvoke([HumanMessage("hi")])
    return str(info.value)


async def test_context_too_long(vendor, server):
    """A context-length 400 from any vendor says the conversation is too long and what to do."""
    server.script(vendor.error(400, CONTEXT_MESSAGES[vendor.name]))
    line = await failure(model_for(vendor, vendor.config(server)))
    assert line == (f"{vendor.name}: the conversation is too long for {vendor.model}'s "
                    "context window (400) — start a new session (ctrl+n)")


async def test_other_bad_request_quotes_the_server(vendor, server):
    """Another 400 quotes the server's message."""
    server.script(vendor.error(400, "tools[0].name: String should match pattern"))
    line = await failure(model_for(vendor, vendor.config(server)))
    assert line == (f"{vendor.name}: request rejected (400): "
                    "tools[0].name: String should match pattern")


async def test_network_down(vendor, server):
    """An unreachable server is one line naming the host and suggesting /retry."""
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if vendor.name == "openai" else "")
    line = await failure(model_for(vendor, vendor.config(server, base_url=base), max_retries=0))
    assert line == (f"{vendor.name}: cannot reach 127.0.0.1:{port} — network down or wrong "
                    "base_url; /retry runs the turn again")


async def test_timeout(vendor, server):
    """A reply slower than the timeout is one line suggesting /retry."""
    server.script(Reply(events=vendor.stream(["late"], []), delay=1.0))
    line = await failure(model_for(vendor, vendor.config(server, timeout=0.2), max_retries=0))
    assert line == f"{vendor.name}: no answer within 0.2s (timeout) — /retry runs the turn again"


async def test_overloaded_event_mid_stream_is_a_server_error(server):
    """Anthropic's overloaded error event inside a 200 stream becomes a server error."""
    # Anthropic can answer 200 and then send an `error` event inside the stream.
    vendor = VENDORS["anthropic"]
    events = vendor.stream(["Hel"], [])[:3]
    events.append('event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
                  '"message": "Overloaded"}}\n\n')
    server.script(Reply(events=events))
    line = await failure(model_for(vendor, vendor.config(server)))
    assert line.startswith("anthropic: ") and "Overloaded" in line


class FakeStatusError(Exception):
    def __init__(self, status: int, body: object):
        super().__init__(f"Error code: {status} - {body}")
        self.status_code = status
        self.body = body


@pytest.mark.parametrize(("status", "body", "expected"), [
    (403, {"error": {"message": "no access"}},
     "openai: permission denied (403) — check OPENAI_API_KEY"),
    (404, {"error": {"message": "The model `gpt-9` does not exist"}},
     "openai: model or endpoint not found (404) — check the model name 'gpt-9' and base_url"),
    (429, {"error": {"message": "You exceeded your current quota, please check your plan",
                     "code": "insufficient_quota"}},
     "openai: quota exhausted (429): You exceeded your current quota, please check your plan "
     "— wait a moment, then /retry runs the turn again"),
    (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
     "openai: server error (529): Overloaded — the service is having trouble; "
     "/retry runs the turn again"),
])
def test_status_classification(status, body, expected):
    """HTTP 403, 404, 429 and 5xx errors map to specific one-line messages."""
    error = classify_error(FakeStatusError(status, body), vendor="openai", model="gpt-9",
                           key_hint="OPENAI_API_KEY")
    assert str(error) == expected and error.status == status


def test_unknown_exception_is_still_one_line():
    """An unexpected exception still becomes one line with its type."""
    error = classify_error(RuntimeError("first line\nsecond line"), vendor="mistral")
    assert str(error) == "mistral: RuntimeError: first line"


def test_secrets_are_scrubbed():
    """API keys are scrubbed from error lines, and key-like strings are redacted."""
    exc = FakeStatusError(400, {"error": {"message": f"bad header Bearer {SECRET}"}})
    line = str(classify_error(exc, vendor="openai", secret=SECRET))
    assert SECRET not in line and "***" in line
    assert redact("key sk-proj-abcdefghijklmnop leaked", None) == "key sk-*** leaked"
