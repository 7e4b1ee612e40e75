"""Mistral chat adapter over the official SDK (`mistralai.client`). Loaded lazily by the factory.

Mistral accepts only tool-call ids of exactly 9 characters [a-zA-Z0-9]: ids from other vendors
(a session started on OpenAI or Anthropic) are remapped deterministically on the way out and
mapped back on the way in. The SDK's own retries are time-based, so retries are counted here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)
from mistralai.client import Mistral

from birdie_tui.providers.coalesce import Piece
from birdie_tui.providers.config import DEFAULT_MODELS, KEY_VARS, ProviderConfig
from birdie_tui.providers.errors import exception_names
from birdie_tui.providers.sdk_base import (
    SDKChatModel,
    StreamState,
    call_chunk,
    finish_reason,
    with_retries,
)
from birdie_tui.providers.streaming import dump_args, safe_id, usage_metadata, vendor_text

ID_PATTERN = r"[A-Za-z0-9]+"
ID_LENGTH = 9
_RETRY_STATUS = {429, 500, 502, 503, 504}
_RETRY_NAMES = {"ConnectError", "ConnectTimeout", "NetworkError", "NoResponseError"}


def mistral_id(call_id: str | None) -> str:
    return safe_id(call_id, ID_PATTERN, ID_LENGTH)


def to_mistral_messages(messages: list[BaseMessage]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(messages, {mistral id: original id}) — the map turns echoed ids back into ours."""
    out: list[dict[str, Any]] = []
    back: dict[str, str] = {}

    def remap(call_id: str | None) -> str:
        new = mistral_id(call_id)
        back[new] = call_id or new
        return new

    for msg in messages:
        text = vendor_text(msg.content)
        if isinstance(msg, SystemMessage):
            out.append({"role": "system", "content": text})
        elif isinstance(msg, ToolMessage):
            out.append({"role": "tool", "content": text or "(no output)", "name": msg.name or "",
                        "tool_call_id": remap(msg.tool_call_id)})
        elif isinstance(msg, AIMessage):
            item: dict[str, Any] = {"role": "assistant"}
            if text.strip() or not msg.tool_calls:
                item["content"] = text if text.strip() else "(empty reply)"
            if msg.tool_calls:
                item["tool_calls"] = [
                    {"id": remap(call["id"]), "type": "function",
                     "function": {"name": call["name"], "arguments": dump_args(call["args"])}}
                    for call in msg.tool_calls]
            out.append(item)
        else:
            out.append({"role": "user", "content": text})
    return out, back


def _delta_text(content: Any) -> str:
    """Delta content is a string, or a list of chunks (text, and "thinking" we do not show)."""
    if isinstance(content, str):
        return content
    parts = []
    for chunk in content or ():
        if getattr(chunk, "type", None) == "text" and isinstance(getattr(chunk, "text", None), str):
            parts.append(chunk.text)
    return "".join(parts)


def retry_delay(exc: BaseException) -> float | None:
    """Seconds to wait before retrying (Retry-After honoured), -1 for default backoff, None to
    give up (the error is not transient)."""
    status = getattr(exc, "status_code", None)
    if status in _RETRY_STATUS:
        headers = getattr(exc, "headers", None) or {}
        for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
            try:
                if (value := headers.get(name)) is not None:
                    return max(0.0, float(value)) / scale
            except (TypeError, ValueError):
                continue
        return -1.0
    return -1.0 if exception_names(exc) & _RETRY_NAMES else None


class MistralChatModel(SDKChatModel):
    """Streams Mistral chat completions; usage from the final chunk."""

    @classmethod
    def from_config(cls, config: ProviderConfig, **overrides: Any) -> MistralChatModel:
        model = cls(vendor="mistral", model_name=config.model or DEFAULT_MODELS["mistral"] or "",
                    temperature=config.temperature, max_tokens=config.max_tokens,
                    timeout=config.timeout, base_url=config.base_url,
                    key_hint=KEY_VARS["mistral"][0], **overrides)
        server = config.base_url.rstrip("/") if config.base_url else None
        if server and server.endswith("/v1"):  # the SDK adds /v1 itself
            server = server[:-3]
        model._client = Mistral(api_key=config.api_key, server_url=server,
                                timeout_ms=int(config.timeout * 1000))
        model._secret = config.api_key
        model.base_url = server or "https://api.mistral.ai"  # named in "cannot reach" errors
        return model

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:  # the Mistral SDK closes its clients on context exit
            client.__exit__(None, None, None)
            await client.__aexit__(None, None, None)

    async def _vendor_stream(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                             stop: list[str] | None, state: StreamState
                             ) -> AsyncIterator[Piece]:
        converted, back = to_mistral_messages(messages)
        params: dict[str, Any] = {"model": self.model_name, "messages": converted}
        if tools:
            params["tools"] = tools
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens:
            params["max_tokens"] = self.max_tokens
        if stop:
            params["stop"] = stop

        async def open_stream() -> Any:
            return await self._client.chat.stream_async(**params)

        stream = await with_retries(open_stream, max_retries=self.max_retries,
                                    retry_after=retry_delay)
        state.started = True
        async with stream:
            async for event in stream:
                chunk = event.data
                if chunk.usage is not None:
                    state.usage = _usage(chunk.usage)
                for choice in chunk.choices[:1]:
                    text = _delta_text(choice.delta.content)
                    if text:
                        yield text
                    for call in choice.delta.tool_calls or ():
                        call_id = call.id if call.id and call.id != "null" else None
                        piece = state.calls.chunk(
                            call_id, id=back.get(call_id, call_id) if call_id else None,
                            name=call.function.name, args=call.function.arguments)
                        yield call_chunk(piece)
                    if choice.finish_reason:
                        state.finish_reason = finish_reason(str(choice.finish_reason))


def _usage(usage: Any) -> dict[str, Any]:
    extra = getattr(usage, "model_extra", None) or {}
    details = extra.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return dict(usage_metadata(usage.prompt_tokens, usage.completion_tokens, cache_read=cached))
