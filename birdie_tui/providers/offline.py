"""The built-in deterministic offline chat model: streams token by token and reports estimated usage."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCallChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from birdie_tui.providers.offline_replies import OfflineReply, compose_reply
from birdie_tui.providers.tokens import estimate_message_tokens, estimate_tokens

OFFLINE_MODEL_NAME = "birdie-offline"
TPS_ENV = "BIRDIE_OFFLINE_TPS"
_TOKEN_RE = re.compile(r"\s*\S+|\s+")


def tps_from_env() -> float | None:
    """Tokens per second from BIRDIE_OFFLINE_TPS; None (unlimited) when unset, invalid or <= 0."""
    raw = os.environ.get(TPS_ENV, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if value > 0 and value != float("inf") else None


def split_tokens(text: str) -> list[str]:
    """Split text into word pieces with their leading whitespace; joining them gives ``text``."""
    return _TOKEN_RE.findall(text)


class OfflineChatModel(BaseChatModel):
    """A deterministic, network-free chat model that drives the whole agent pipeline."""

    model_name: str = OFFLINE_MODEL_NAME
    tokens_per_second: float | None = Field(default_factory=tps_from_env)

    @property
    def _llm_type(self) -> str:
        return "birdie-offline"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(
        self, tools: Sequence[dict[str, Any] | type | Callable[..., Any] | Any], **kwargs: Any
    ) -> Any:
        """Bind tools in OpenAI format; the model reads them back from ``kwargs['tools']``."""
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    # -- reply building -------------------------------------------------------------------

    def _usage(self, messages: list[BaseMessage], tools: Any, reply: OfflineReply) -> dict[str, int]:
        est_in = estimate_message_tokens(messages)
        if tools:
            est_in += estimate_tokens(json.dumps(tools, sort_keys=True, default=str))
        if reply.tool_call:
            est_out = sum(estimate_tokens(call["name"] + json.dumps(call["args"], ensure_ascii=False))
                          for call in reply.calls)
        else:
            est_out = estimate_tokens(reply.text)
        return {"input_tokens": est_in, "output_tokens": est_out, "total_tokens": est_in + est_out}

    def _metadata(self, reply: OfflineReply) -> dict[str, Any]:
        finish = "tool_calls" if reply.tool_call else "stop"
        return {"model_name": self.model_name, "finish_reason": finish}

    def _result(self, messages: list[BaseMessage], **kwargs: Any) -> ChatResult:
        tools = kwargs.get("tools")
        reply = compose_reply(messages, tools)
        message = AIMessage(
            content=reply.text,
            tool_calls=[{**call, "type": "tool_call"} for call in reply.calls],
            usage_metadata=self._usage(messages, tools, reply),
            response_metadata=self._metadata(reply),
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _chunks(self, messages: list[BaseMessage], **kwargs: Any) -> list[ChatGenerationChunk]:
        tools = kwargs.get("tools")
        reply = compose_reply(messages, tools)
        # The last chunk carries usage (exactly once per call) and the finish metadata.
        last: dict[str, Any] = {
            "usage_metadata": self._usage(messages, tools, reply),
            "response_metadata": self._metadata(reply),
            "chunk_position": "last",
        }
        if reply.tool_call:
            chunks: list[ToolCallChunk] = [{
                "name": call["name"],
                "args": json.dumps(call["args"], ensure_ascii=False),
                "id": call["id"],
                "index": index,
                "type": "tool_call_chunk",
            } for index, call in enumerate(reply.calls)]
            pieces = [AIMessageChunk(content="", tool_call_chunks=chunks, **last)]
        else:
            tokens = split_tokens(reply.text) or [""]
            pieces = [AIMessageChunk(content=token) for token in tokens[:-1]]
            pieces.append(AIMessageChunk(content=tokens[-1], **last))
        return [ChatGenerationChunk(message=piece) for piece in pieces]

    # -- BaseChatModel hooks ----------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._result(messages, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._result(messages, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        delay = 1.0 / self.tokens_per_second if self.tokens_per_second else 0.0
        for chunk in self._chunks(messages, **kwargs):
            if delay:
                time.sleep(delay)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        delay = 1.0 / self.tokens_per_second if self.tokens_per_second else 0.0
        loop = asyncio.get_running_loop()
        due = loop.time()
        for chunk in self._chunks(messages, **kwargs):
            if delay:
                # Keep to a schedule, like a socket that buffers while the loop is busy: a slow
                # consumer gets the backlog at once rather than the rate dropping to its speed.
                due += delay
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
            yield chunk
