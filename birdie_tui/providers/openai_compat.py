"""OpenAI chat-completions adapter: OpenAI, Azure OpenAI, Gemini (its OpenAI-compatible endpoint),
Ollama and any OpenAI-compatible base_url. Loaded lazily by the factory (imports the SDK)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import openai
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from birdie_tui.providers.coalesce import Piece
from birdie_tui.providers.config import DEFAULT_MODELS, KEY_VARS, ProviderConfig
from birdie_tui.providers.sdk_base import (
    SDKChatModel,
    StreamState,
    call_chunk,
    finish_reason,
)
from birdie_tui.providers.sse import DONE, SSEReader
from birdie_tui.providers.streaming import dump_args, usage_metadata, vendor_text

GEMINI_OPENAI_URL = "https://generativelanguage.googleapis.com/v1beta/openai/"
# Reasoning models accept only the default temperature.
_NO_TEMPERATURE = re.compile(r"^(o\d|gpt-5)", re.IGNORECASE)
# Azure api-versions before this one reject `stream_options` (no streamed usage: estimated).
_AZURE_USAGE_SINCE = "2024-09-01"


def to_openai_messages(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """LangChain messages to chat-completions messages (`tool` role for results)."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        text = vendor_text(msg.content)
        if isinstance(msg, SystemMessage):
            out.append({"role": "system", "content": text})
        elif isinstance(msg, ToolMessage):
            out.append({"role": "tool", "tool_call_id": msg.tool_call_id,
                        "content": text or "(no output)"})
        elif isinstance(msg, AIMessage):
            item: dict[str, Any] = {"role": "assistant", "content": text or None}
            if msg.tool_calls:
                item["tool_calls"] = [
                    {"id": call["id"], "type": "function",
                     "function": {"name": call["name"], "arguments": dump_args(call["args"])}}
                    for call in msg.tool_calls]
            elif not text:
                item["content"] = "(empty reply)"
            out.append(item)
        elif isinstance(msg, HumanMessage):
            out.append({"role": "user", "content": text})
        else:  # ChatMessage and friends: keep their text as the user's
            out.append({"role": "user", "content": text})
    return out


def _make_client(config: ProviderConfig, max_retries: int) -> Any:
    common: dict[str, Any] = {"timeout": config.timeout, "max_retries": max_retries}
    if config.vendor == "azure":
        url, key, version = config.base_url, config.api_key, config.api_version
        if url is not None and "/openai/deployments/" in url:  # a deployment's own URL
            return openai.AsyncAzureOpenAI(api_key=key, api_version=version, base_url=url, **common)
        if url is None:  # the SDK reads AZURE_OPENAI_ENDPOINT, as with azure_endpoint=None
            return openai.AsyncAzureOpenAI(api_key=key, api_version=version, **common)
        return openai.AsyncAzureOpenAI(api_key=key, api_version=version, azure_endpoint=url, **common)
    base_url = config.base_url
    if config.vendor == "gemini":
        base_url = base_url or GEMINI_OPENAI_URL
    # Ollama and most local servers need no key, but the SDK insists on one.
    api_key = config.api_key or ("ollama" if config.vendor == "ollama" else "none")
    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, **common)


class OpenAICompatChatModel(SDKChatModel):
    """Streams chat completions; usage from the final `include_usage` chunk."""

    api_version: str | None = None

    @classmethod
    def from_config(cls, config: ProviderConfig, **overrides: Any) -> OpenAICompatChatModel:
        model = cls(vendor=config.vendor, model_name=config.model or DEFAULT_MODELS["openai"] or "",
                    temperature=config.temperature, max_tokens=config.max_tokens,
                    timeout=config.timeout, api_version=config.api_version,
                    base_url=config.base_url or (GEMINI_OPENAI_URL if config.vendor == "gemini"
                                                 else None),
                    key_hint=" / ".join(KEY_VARS.get(config.vendor, ())), **overrides)
        model._client = _make_client(config, model.max_retries)
        model._secret = config.api_key
        model.base_url = str(model._client.base_url)  # named in "cannot reach" errors
        return model

    def _request(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                 stop: list[str] | None) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model_name, "stream": True,
                                  "messages": to_openai_messages(messages)}
        if self.vendor != "azure" or (self.api_version or "") >= _AZURE_USAGE_SINCE:
            params["stream_options"] = {"include_usage": True}
        if tools:
            params["tools"] = tools
        if self.temperature is not None and not _NO_TEMPERATURE.match(self.model_name):
            params["temperature"] = self.temperature
        if self.max_tokens:
            key = "max_completion_tokens" if self.vendor == "openai" else "max_tokens"
            params[key] = self.max_tokens
        if stop:
            params["stop"] = stop
        return params

    async def _vendor_stream(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                             stop: list[str] | None, state: StreamState
                             ) -> AsyncIterator[Piece]:
        # The raw body, not the SDK's stream: building a typed object per token cost more than
        # everything else a token goes through (status errors and retries stay the SDK's).
        # A read's text goes out as a plain string: coalesce builds one message per window.
        params = self._request(messages, tools, stop)
        async with self._client.chat.completions.with_streaming_response.create(
                **params) as response:
            state.started = True
            reader = SSEReader()
            async for data in response.iter_bytes():
                text: list[str] = []  # the text of this read, merged into one chunk
                for payload in reader.feed(data):
                    if payload.strip() == DONE:
                        break
                    for piece in _apply(json.loads(payload), state, text, response):
                        yield piece
                if text:
                    yield "".join(text)
        if state.finish_reason is None and self.vendor not in ("openai", "azure"):
            # Some compatible servers end with [DONE] but no finish_reason: a clean end is
            # accepted from them (a cut connection still raises in the loop above).
            state.finish_reason = "tool_calls" if state.calls.calls else "stop"


def _apply(chunk: dict[str, Any], state: StreamState, text: list[str],
           response: Any) -> list[Piece]:
    """One chat-completion chunk: text joins `text`; a tool-call piece is returned (after the
    text before it, so the order holds); usage and the finish reason go to `state`."""
    if chunk.get("error"):  # an error event in the middle of the stream
        error = chunk["error"]
        message = error.get("message") if isinstance(error, dict) else None
        raise openai.APIError(message or "An error occurred during streaming",
                              response.http_request, body=error)
    if chunk.get("usage"):
        state.usage = _usage(chunk["usage"])
    out: list[Piece] = []
    for choice in (chunk.get("choices") or [])[:1]:  # we never ask for n > 1
        delta = choice.get("delta") or {}
        text.append((delta.get("content") or "") + (delta.get("refusal") or ""))
        for call in delta.get("tool_calls") or []:
            if any(text):
                out.append("".join(text))
            text.clear()
            fn = call.get("function") or {}
            key = call.get("index") if call.get("index") is not None else (call.get("id") or None)
            out.append(call_chunk(state.calls.chunk(
                key, id=call.get("id") or None, name=fn.get("name"),
                args=fn.get("arguments") or "")))
        if choice.get("finish_reason"):
            state.finish_reason = finish_reason(choice["finish_reason"])
    return out


def _usage(usage: dict[str, Any]) -> dict[str, Any]:
    """`prompt_tokens` already includes cached tokens (OpenAI convention)."""
    prompt = usage.get("prompt_tokens_details") or {}
    completion = usage.get("completion_tokens_details") or {}
    return dict(usage_metadata(
        usage.get("prompt_tokens"), usage.get("completion_tokens"),
        cache_read=prompt.get("cached_tokens"), reasoning=completion.get("reasoning_tokens"),
    ))
