"""The base of the vendor adapters: a LangChain BaseChatModel whose subclasses implement one
async generator (`_vendor_stream`) over their SDK; streaming shape, usage, errors live here."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel, agenerate_from_stream
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from birdie_tui.providers.coalesce import Piece, coalesce
from birdie_tui.providers.errors import ProviderError, StreamCut, classify_error
from birdie_tui.providers.streaming import ToolCallChunks, usage_metadata
from birdie_tui.providers.tokens import estimate_message_tokens, estimate_tokens

DEFAULT_MAX_RETRIES = 2
T = TypeVar("T")


@dataclass
class StreamState:
    """What a vendor stream learned besides the chunks it yielded."""

    calls: ToolCallChunks = field(default_factory=ToolCallChunks)
    usage: dict[str, Any] | None = None
    finish_reason: str | None = None  # normalized: stop | tool_calls | length | other
    text: list[str] = field(default_factory=list)
    started: bool = False  # the response stream is open (set by the adapter)


def call_chunk(piece: dict[str, Any]) -> AIMessageChunk:
    """A chunk carrying one tool_call_chunk (from ToolCallChunks.chunk)."""
    return AIMessageChunk(content="", tool_call_chunks=[piece])  # type: ignore[list-item]


def finish_reason(raw: str | None) -> str | None:
    """Vendor stop reasons to one vocabulary (the graph checks "length")."""
    if raw is None:
        return None
    return {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
            "max_tokens": "length", "model_length": "length", "pause_turn": "stop",
            "function_call": "tool_calls", "error": "error"}.get(raw, raw)


class SDKChatModel(BaseChatModel):
    """Shared plumbing; the API key lives only inside the private SDK client."""

    vendor: str
    model_name: str
    temperature: float | None = 0.0
    max_tokens: int | None = None
    timeout: float = 120.0
    max_retries: int = DEFAULT_MAX_RETRIES
    base_url: str | None = None
    key_hint: str = ""  # the env var named in an authentication error
    _client: Any = PrivateAttr(default=None)
    _secret: str | None = PrivateAttr(default=None)  # only to scrub error text

    @property
    def _llm_type(self) -> str:
        return f"birdie-{self.vendor}"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"vendor": self.vendor, "model_name": self.model_name}

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """Tools are bound in OpenAI format; each adapter converts them for its API."""
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    async def aclose(self) -> None:
        """Close the SDK's HTTP client now (garbage collection may do it after the loop ended)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    # -- to implement ---------------------------------------------------------------------
    def _vendor_stream(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                       stop: list[str] | None, state: StreamState
                       ) -> AsyncIterator[Piece]:
        """The vendor's stream: text as plain strings, anything else as message chunks."""
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------
    def classify(self, exc: BaseException, mid_stream: bool = False) -> ProviderError:
        return classify_error(exc, vendor=self.vendor, model=self.model_name,
                              key_hint=self.key_hint, base_url=self.base_url,
                              timeout=self.timeout, secret=self._secret, mid_stream=mid_stream)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        state = StreamState()
        try:
            # Paced text is merged per window (providers/coalesce.py): every adapter's chunks.
            chunks = coalesce(self._vendor_stream(messages, kwargs.get("tools") or [], stop,
                                                  state))
            async with contextlib.aclosing(chunks):  # its read task ends with this call
                async for chunk in chunks:
                    if isinstance(chunk.content, str) and chunk.content:
                        state.text.append(chunk.content)
                    yield ChatGenerationChunk(message=chunk)
            if state.finish_reason is None:
                raise StreamCut("stream ended before the end-of-message marker")
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as exc:
            raise self.classify(exc, mid_stream=state.started) from exc
        yield ChatGenerationChunk(message=self._last_chunk(messages, kwargs, state))

    def _last_chunk(self, messages: list[BaseMessage], kwargs: dict[str, Any],
                    state: StreamState) -> AIMessageChunk:
        """Usage (once per call) and finish metadata ride on one final, empty chunk."""
        usage = state.usage or self._estimated_usage(messages, kwargs.get("tools"), state)
        metadata: dict[str, Any] = {"model_name": self.model_name,
                                    "finish_reason": state.finish_reason or "stop"}
        invalid = state.calls.invalid_args()
        if invalid:  # the graph answers these calls with an error instead of running them
            metadata["invalid_tool_args"] = invalid
        return AIMessageChunk(content="", usage_metadata=usage,  # type: ignore[arg-type]
                              response_metadata=metadata, chunk_position="last")

    def _estimated_usage(self, messages: list[BaseMessage], tools: Any,
                         state: StreamState) -> dict[str, Any]:
        # Some endpoints (old Azure api-versions, some compatible servers) send no usage.
        est_in = estimate_message_tokens(messages)
        if tools:
            est_in += estimate_tokens(json.dumps(tools, sort_keys=True, default=str))
        est_out = estimate_tokens("".join(state.text))
        est_out += sum(estimate_tokens(c["name"] + c["args"]) for c in state.calls.calls)
        return dict(usage_metadata(est_in, est_out))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await agenerate_from_stream(self._astream(messages, stop, run_manager, **kwargs))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # The app is async; this keeps `.invoke()` usable from plain scripts.
        return asyncio.run(self._agenerate(messages, stop, None, **kwargs))


async def with_retries(open_call: Callable[[], Awaitable[T]], *, max_retries: int,
                       retry_after: Callable[[BaseException], float | None]) -> T:
    """Retry opening a call on 429/5xx/connection errors with backoff, honouring Retry-After
    (for SDKs whose own retries are time-based rather than counted)."""
    attempt = 0
    while True:
        try:
            return await open_call()
        except Exception as exc:  # noqa: BLE001 - re-raised unless retryable
            delay = retry_after(exc)
            if attempt >= max_retries or delay is None:
                raise
            attempt += 1
            await asyncio.sleep(delay if delay >= 0 else
                                min(0.5 * 2 ** (attempt - 1), 8.0) * (1 - 0.25 * random.random()))
