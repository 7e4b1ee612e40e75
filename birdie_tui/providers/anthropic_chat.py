"""Anthropic Messages adapter over the official SDK. Loaded lazily by the factory.

Wire facts it relies on: the system prompt is a separate field; tool results are `tool_result`
blocks in a *user* message; input and cache tokens arrive in `message_start`, and the output
count in `message_delta` is cumulative (overwrite, don't add).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anthropic
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)

from birdie_tui.providers.catalog import default_max_output
from birdie_tui.providers.coalesce import Piece
from birdie_tui.providers.config import DEFAULT_MODELS, KEY_VARS, ProviderConfig
from birdie_tui.providers.sdk_base import (
    SDKChatModel,
    StreamState,
    call_chunk,
    finish_reason,
)
from birdie_tui.providers.streaming import safe_id, usage_metadata, vendor_text


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def to_anthropic_messages(messages: list[BaseMessage]) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, messages): consecutive same-role messages are merged, so the tool
    results of one assistant turn travel together in one user message."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for msg in messages:
        text = vendor_text(msg.content)
        if isinstance(msg, SystemMessage):
            system.append(text)
            continue
        if isinstance(msg, ToolMessage):
            role, blocks = "user", [{
                "type": "tool_result", "tool_use_id": safe_id(msg.tool_call_id),
                "content": text or "(no output)", "is_error": msg.status == "error"}]
        elif isinstance(msg, AIMessage):
            role = "assistant"
            blocks = [_text_block(text)] if text.strip() else []
            blocks += [{"type": "tool_use", "id": safe_id(call["id"]), "name": call["name"],
                        "input": call["args"] or {}} for call in msg.tool_calls]
        else:  # HumanMessage and anything else with text
            role, blocks = "user", [_text_block(text)] if text.strip() else []
        if not blocks:  # the API rejects empty content
            blocks = [_text_block("(empty reply)" if role == "assistant" else "(empty message)")]
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return "\n\n".join(part for part in system if part.strip()), out


def to_anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format tools to Anthropic's {name, description, input_schema}."""
    out = []
    for tool in tools:
        fn = tool.get("function", tool)
        out.append({"name": fn["name"], "description": fn.get("description", ""),
                    "input_schema": fn.get("parameters") or {"type": "object", "properties": {}}})
    return out


class AnthropicChatModel(SDKChatModel):
    """Streams Messages API events into the shared chunk shape."""

    @classmethod
    def from_config(cls, config: ProviderConfig, **overrides: Any) -> AnthropicChatModel:
        name = config.model or DEFAULT_MODELS["anthropic"] or ""
        model = cls(vendor="anthropic", model_name=name,
                    temperature=config.temperature, max_tokens=config.max_tokens,
                    timeout=config.timeout, base_url=config.base_url,
                    key_hint=KEY_VARS["anthropic"][0], **overrides)
        model._client = anthropic.AsyncAnthropic(
            api_key=config.api_key, base_url=config.base_url, timeout=config.timeout,
            max_retries=model.max_retries)
        model._secret = config.api_key
        model.base_url = str(model._client.base_url)  # named in "cannot reach" errors
        return model

    def _request(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                 stop: list[str] | None) -> dict[str, Any]:
        system, converted = to_anthropic_messages(messages)
        # Each call repeats the previous one plus a little: a top-level cache marker lets the
        # API cache that prefix (system prompt, tools, history). The current Messages API takes
        # no `temperature`, so the configured one is not sent.
        params: dict[str, Any] = {
            "model": self.model_name, "messages": converted, "stream": True,
            "max_tokens": self.max_tokens or default_max_output(self.model_name),
            "cache_control": {"type": "ephemeral"}}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = to_anthropic_tools(tools)
        if stop:
            params["stop_sequences"] = stop
        return params

    async def _vendor_stream(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                             stop: list[str] | None, state: StreamState
                             ) -> AsyncIterator[Piece]:
        stream = await self._client.messages.create(**self._request(messages, tools, stop))
        state.started = True
        counts = {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0}
        async with stream:
            async for event in stream:
                kind = event.type
                if kind == "message_start":
                    _read_usage(event.message.usage, counts)
                elif kind == "content_block_start":
                    block = event.content_block
                    if block.type == "tool_use":
                        piece = state.calls.chunk(event.index, id=block.id, name=block.name,
                                                  args=block.input or "")
                        yield call_chunk(piece)
                    elif block.type == "text" and block.text:
                        yield block.text
                elif kind == "content_block_delta":
                    delta = event.delta
                    if delta.type == "text_delta" and delta.text:
                        yield delta.text
                    elif delta.type == "input_json_delta" and delta.partial_json:
                        piece = state.calls.chunk(event.index, args=delta.partial_json)
                        yield call_chunk(piece)
                elif kind == "message_delta":
                    _read_usage(event.usage, counts)
                    if event.delta.stop_reason:
                        state.finish_reason = finish_reason(event.delta.stop_reason)
        # input_tokens excludes cached tokens on the wire; LangChain's counts include them.
        cached = counts["cache_read"] + counts["cache_creation"]
        state.usage = dict(usage_metadata(counts["input"] + cached, counts["output"],
                                          cache_read=counts["cache_read"],
                                          cache_creation=counts["cache_creation"]))


def _read_usage(usage: Any, counts: dict[str, int]) -> None:
    """Overwrite with whatever this event reports (message_delta figures are cumulative)."""
    if usage is None:
        return
    for key, attr in (("input", "input_tokens"), ("output", "output_tokens"),
                      ("cache_read", "cache_read_input_tokens"),
                      ("cache_creation", "cache_creation_input_tokens")):
        value = getattr(usage, attr, None)
        if isinstance(value, int):
            counts[key] = value
