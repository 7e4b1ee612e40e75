"""Fixtures: the real vendor SDKs against a loopback server speaking their wire format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig
from tests.agent.conftest import write_skills

from . import frames
from .loopback import LoopbackServer, Reply

SECRET = "sk-test-SECRET-123"


@dataclass
class Vendor:
    name: str
    model: str
    stream: Callable[..., list[str]]
    error_body: Callable[[int, str], Any]
    path: str  # where the SDK posts
    key_var: str

    def config(self, server: LoopbackServer, **overrides: Any) -> ProviderConfig:
        base = server.url + "/v1" if self.name == "openai" else server.url
        fields: dict[str, Any] = {"vendor": self.name, "model": self.model, "api_key": SECRET,
                                  "base_url": base, "timeout": 10.0}
        return ProviderConfig(**{**fields, **overrides})

    def reply(self, text: list[str] = (), calls: list[tuple[str, str, str]] = (),
              **kw: Any) -> Reply:
        return Reply(events=self.stream(list(text), list(calls), **kw))

    def error(self, status: int, message: str, **headers: str) -> Reply:
        return Reply.error(status, self.error_body(status, message), **headers)


VENDORS = {
    "openai": Vendor("openai", "gpt-4o", frames.openai_stream,
                     lambda status, msg: frames.openai_error(status, msg),
                     "/v1/chat/completions", "OPENAI_API_KEY"),
    "anthropic": Vendor("anthropic", "claude-haiku-4-5", frames.anthropic_stream,
                        lambda status, msg: frames.anthropic_error(
                            {401: "authentication_error", 429: "rate_limit_error",
                             400: "invalid_request_error"}.get(status, "api_error"), msg),
                        "/v1/messages", "ANTHROPIC_API_KEY"),
    "mistral": Vendor("mistral", "mistral-large-latest", frames.mistral_stream,
                      lambda status, msg: frames.mistral_error(msg),
                      "/v1/chat/completions", "MISTRAL_API_KEY"),
}

# Tests of the three vendors get a fast retry: servers send a tiny retry-after-ms.
FAST = {"retry-after-ms": "1", "retry-after": "0"}


@pytest.fixture
def server():
    srv = LoopbackServer().start()
    yield srv
    srv.stop()


@pytest.fixture(params=sorted(VENDORS))
def vendor(request) -> Vendor:
    return VENDORS[request.param]


@pytest.fixture
def skills_dir(tmp_path):
    return write_skills(tmp_path / "skills")


@pytest.fixture
async def make_engine(skills_dir):
    engines: list[Engine] = []

    async def factory(provider: ProviderConfig, environ: dict[str, str] | None = None) -> Engine:
        options = EngineOptions(skills_dirs=[skills_dir], provider=provider, tool_timeout=10)
        if environ is not None:
            options.environ = environ
        engine = Engine(options)
        await engine.start()
        await engine.open_session()
        engines.append(engine)
        return engine

    yield factory
    for engine in engines:
        await engine.aclose()


async def run(engine: Engine, text: str, **kw: Any) -> list[Any]:
    return [event async for event in engine.run_turn(text, **kw)]


def kinds(events: list[Any]) -> list[str]:
    return [event.type for event in events]
