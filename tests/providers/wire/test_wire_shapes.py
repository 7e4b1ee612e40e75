"""Request shapes per vendor and endpoint flavour (Azure deployments, Gemini's and Ollama's
OpenAI-compatible URLs), message conversion, and sessions that change vendor midway."""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.anthropic_chat import to_anthropic_messages
from birdie_tui.providers.config import ProviderConfig, resolve_provider_config
from birdie_tui.providers.factory import create_chat_model
from birdie_tui.providers.mistral_chat import mistral_id, to_mistral_messages
from birdie_tui.providers.openai_compat import GEMINI_OPENAI_URL, to_openai_messages

from . import frames
from .conftest import SECRET, VENDORS, run
from .loopback import Reply

pytestmark = pytest.mark.integration

HI = [HumanMessage("hi")]


def openai_reply(*text: str, **kw) -> Reply:
    return Reply(events=frames.openai_stream(list(text), **kw))


async def test_azure_deployment_url_and_api_version(server):
    """Azure requests go to the deployment URL with api-version, the api-key header, usage."""
    server.script(openai_reply("from azure"))
    config = ProviderConfig(vendor="azure", model="my-gpt4o-deploy", api_key=SECRET,
                            base_url=server.url, api_version="2024-10-21")
    reply = await create_chat_model(config).ainvoke(HI)
    assert reply.content == "from azure"
    request = server.requests[0]
    assert request.path == "/openai/deployments/my-gpt4o-deploy/chat/completions"
    assert request.query == {"api-version": ["2024-10-21"]}
    assert request.headers["api-key"] == SECRET
    assert request.body["stream_options"] == {"include_usage": True}


async def test_azure_full_deployment_url_and_old_api_version(server):
    """A full Azure deployment URL works; an old api-version sends no stream_options."""
    # An api-version from before streamed usage: no stream_options, usage estimated instead.
    server.script(openai_reply("older", include_usage=False))
    config = ProviderConfig(vendor="azure", model="dep", api_key=SECRET,
                            base_url=f"{server.url}/openai/deployments/dep",
                            api_version="2024-02-01")
    reply = await create_chat_model(config).ainvoke(HI)
    request = server.requests[0]
    assert request.path == "/openai/deployments/dep/chat/completions"
    assert request.query == {"api-version": ["2024-02-01"]}
    assert "stream_options" not in request.body
    assert reply.usage_metadata["input_tokens"] > 0 and reply.usage_metadata["output_tokens"] > 0


async def test_gemini_uses_its_openai_compatible_endpoint(server):
    """Gemini uses its OpenAI-compatible endpoint with a bearer key and max_tokens."""
    model = create_chat_model(ProviderConfig(vendor="gemini", model="gemini-2.5-flash",
                                             api_key=SECRET))
    assert str(model._client.base_url) == GEMINI_OPENAI_URL
    server.script(openai_reply("gemini says hi"))
    config = ProviderConfig(vendor="gemini", model="gemini-2.5-flash", api_key=SECRET,
                            base_url=f"{server.url}/v1beta/openai/", max_tokens=256)
    reply = await create_chat_model(config).ainvoke(HI)
    assert reply.content == "gemini says hi"
    request = server.requests[0]
    assert request.path == "/v1beta/openai/chat/completions"
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.body["model"] == "gemini-2.5-flash" and request.body["max_tokens"] == 256


async def test_ollama_default_url_and_no_key(server):
    """Ollama defaults to localhost:11434 and sends a placeholder key."""
    local = create_chat_model(resolve_provider_config({"LLM_VENDOR": "ollama"}))
    assert str(local._client.base_url) == "http://localhost:11434/v1/"
    server.script(openai_reply("llama here"))
    config = resolve_provider_config({"LLM_VENDOR": "ollama", "LLM_MODEL": "qwen3:8b",
                                      "OLLAMA_BASE_URL": f"{server.url}/v1"})
    reply = await create_chat_model(config).ainvoke(HI)
    assert reply.content == "llama here"
    request = server.requests[0]
    assert request.path == "/v1/chat/completions" and request.body["model"] == "qwen3:8b"
    assert request.headers["authorization"] == "Bearer ollama"  # the SDK insists on a key


async def test_openai_parameters(server):
    """OpenAI gets max_completion_tokens, and temperature only for non-reasoning models."""
    server.script(openai_reply("a"), openai_reply("b"))
    base = {"vendor": "openai", "api_key": SECRET, "base_url": f"{server.url}/v1",
            "max_tokens": 100, "temperature": 0.3}
    await create_chat_model(ProviderConfig(model="gpt-4o", **base)).ainvoke(HI)
    await create_chat_model(ProviderConfig(model="gpt-5-mini", **base)).ainvoke(HI)
    first, second = (r.body for r in server.requests)
    assert first["max_completion_tokens"] == 100 and first["temperature"] == 0.3
    assert "temperature" not in second  # reasoning models take only the default


async def test_anthropic_request_fields(server):
    """Anthropic gets joined system prompts, max_tokens, cache control and content blocks."""
    server.script(Reply(events=frames.anthropic_stream(["ok"])))
    config = VENDORS["anthropic"].config(server, max_tokens=300)
    await create_chat_model(config).ainvoke([SystemMessage("be brief"), SystemMessage("extra"),
                                             HumanMessage("hi")])
    body = server.requests[0].body
    assert body["system"] == "be brief\n\nextra" and body["max_tokens"] == 300
    assert body["cache_control"] == {"type": "ephemeral"}
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


async def test_mistral_base_url_with_v1_suffix(server):
    """A Mistral base URL ending in /v1 is not doubled."""
    server.script(Reply(events=frames.mistral_stream(["bonjour"])))
    config = VENDORS["mistral"].config(server, base_url=f"{server.url}/v1")
    assert (await create_chat_model(config).ainvoke(HI)).content == "bonjour"
    assert server.requests[0].path == "/v1/chat/completions"


def test_images_and_unknown_blocks_become_a_note():
    """Image and unknown content blocks become an omitted-content note for every vendor."""
    content = [{"type": "text", "text": "look: "},
               {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
               {"type": "audio", "data": "..."}]
    history = [HumanMessage(content=content)]
    text = to_openai_messages(history)[0]["content"]
    assert text.startswith("look: ") and "[image_url content omitted" in text
    assert "[audio content omitted" in text and "AAAA" not in text
    _, converted = to_anthropic_messages(history)
    assert "[image_url content omitted" in converted[0]["content"][0]["text"]
    assert "[image_url content omitted" in to_mistral_messages(history)[0][0]["content"]


def test_anthropic_conversion_merges_tool_results_and_fills_empty_text():
    """Anthropic conversion merges tool results, remaps bad ids and fills empty text."""
    history = [
        HumanMessage("go"),
        AIMessage("", tool_calls=[{"name": "a", "args": {}, "id": "call:1/x"},
                                  {"name": "b", "args": {"k": 1}, "id": "call_2"}]),
        ToolMessage("ra", tool_call_id="call:1/x", name="a", status="error"),
        ToolMessage("", tool_call_id="call_2", name="b"),
        AIMessage(""),
        HumanMessage("next"),
    ]
    system, messages = to_anthropic_messages(history)
    assert system == "" and [m["role"] for m in messages] == ["user", "assistant", "user",
                                                              "assistant", "user"]
    uses = messages[1]["content"]
    results = messages[2]["content"]
    assert [u["id"] for u in uses] == [r["tool_use_id"] for r in results]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", u["id"]) for u in uses)  # "call:1/x" remapped
    assert results[0]["is_error"] is True and results[1]["content"] == "(no output)"
    assert messages[3]["content"] == [{"type": "text", "text": "(empty reply)"}]


def test_mistral_ids_are_nine_alphanumerics_and_deterministic():
    """Tool call ids for Mistral are nine deterministic alphanumerics, mapped back on return."""
    for original in ("call_abc123", "toolu_01A09q90qw90lq917835lq9", "abcdefghi", ""):
        new = mistral_id(original)
        assert re.fullmatch(r"[A-Za-z0-9]{9}", new) and mistral_id(original) == new
    assert mistral_id("abcdefghi") == "abcdefghi"  # Mistral's own ids are kept
    assert mistral_id("call_1") != mistral_id("call_2")
    messages, back = to_mistral_messages([
        AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "call_1"}]),
        ToolMessage("r", tool_call_id="call_1", name="t")])
    call_id = messages[0]["tool_calls"][0]["id"]
    assert messages[1]["tool_call_id"] == call_id and back[call_id] == "call_1"


async def test_session_started_on_openai_continues_on_mistral_and_anthropic(server, skills_dir):
    """A session with tool calls moves from OpenAI to Mistral to Anthropic with valid ids."""
    echo = ("call_openai_0001", "echo_text", '{"text": "from openai"}')
    server.script(VENDORS["openai"].reply([], [echo]), VENDORS["openai"].reply(["done"]),
                  VENDORS["mistral"].reply(["continued"]), VENDORS["mistral"].reply(["again"]),
                  VENDORS["anthropic"].reply(["and on"]))
    engines = []
    try:
        for name, text in (("openai", "echo it"), ("mistral", "and now?"),
                           ("mistral", "once more"), ("anthropic", "finally")):
            engine = Engine(EngineOptions(skills_dirs=[skills_dir],
                                          provider=VENDORS[name].config(server)))
            engines.append(engine)
            await engine.start()
            await engine.open_session(engines[0].session.id if len(engines) > 1 else None)
            events = await run(engine, text)
            assert events[-1].type == "done", events[-1]
    finally:
        for engine in engines:
            await engine.aclose()
    third, fourth = server.requests[2].body, server.requests[3].body
    assistant = next(m for m in third["messages"] if m.get("tool_calls"))
    tool = next(m for m in third["messages"] if m["role"] == "tool")
    call_id = assistant["tool_calls"][0]["id"]
    assert re.fullmatch(r"[A-Za-z0-9]{9}", call_id) and tool["tool_call_id"] == call_id
    assert call_id in str(fourth)  # the same mapping on every request
    uses = [b for m in server.requests[4].body["messages"] if m["role"] == "assistant"
            for b in m["content"] if b["type"] == "tool_use"]
    assert [u["id"] for u in uses] == ["call_openai_0001"]  # original ids are kept in history
    history = await _history(skills_dir, engines[0].session.id)
    assert history_problems(history) == []


async def _history(skills_dir, session_id):
    engine = Engine(EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig("offline")))
    await engine.start()
    try:
        await engine.open_session(session_id)
        return await engine.messages()
    finally:
        await engine.aclose()
