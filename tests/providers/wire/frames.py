"""Each vendor's real streaming wire format, built from a small script of text pieces and tool
calls (as the vendors send them: arguments split across several deltas)."""

from __future__ import annotations

import json
from typing import Any

MODEL = "test-model"


def sse(data: Any, event: str | None = None) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "") + f"data: {text}\n\n"


def split(text: str, size: int = 7) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


# ------------------------------------------------------------------------------ OpenAI
def openai_stream(text: list[str] = (), calls: list[tuple[str, str, str]] = (), *,
                  usage: tuple[int, int, int] = (12, 5, 0), finish: str | None = None,
                  include_usage: bool = True) -> list[str]:
    """`calls`: (id, name, raw JSON arguments). Ends with a usage chunk and [DONE]."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": MODEL}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        return sse({**base, "choices": [{"index": 0, "delta": delta,
                                         "finish_reason": finish_reason, "logprobs": None}]})

    frames = [chunk({"role": "assistant", "content": ""})]
    frames += [chunk({"content": piece}) for piece in text]
    for index, (call_id, name, args) in enumerate(calls):
        frames.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": ""}}]}))
        frames += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in split(args)]
    frames.append(chunk({}, finish or ("tool_calls" if calls else "stop")))
    if include_usage:
        prompt, completion, cached = usage
        frames.append(sse({**base, "choices": [], "usage": {
            "prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached}}}))
    frames.append(sse("[DONE]"))
    return frames


# ------------------------------------------------------------------------------ Anthropic
def anthropic_stream(text: list[str] = (), calls: list[tuple[str, str, str]] = (), *,
                     usage: tuple[int, int, int, int] = (12, 5, 0, 0),
                     stop_reason: str | None = None) -> list[str]:
    """usage: (input, output, cache_read, cache_creation); output is cumulative in
    message_delta, so message_start carries a smaller, provisional count."""
    inp, out, cache_read, cache_creation = usage
    frames = [sse({"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": MODEL, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": 1,
                  "cache_read_input_tokens": cache_read,
                  "cache_creation_input_tokens": cache_creation}}}, "message_start")]
    index = 0
    if text:
        frames.append(sse({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}}, "content_block_start"))
        frames += [sse({"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
                   for piece in text]
        frames.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    for call_id, name, args in calls:
        frames.append(sse({"type": "content_block_start", "index": index, "content_block": {
            "type": "tool_use", "id": call_id, "name": name, "input": {}}}, "content_block_start"))
        frames += [sse({"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece}},
                       "content_block_delta") for piece in split(args)]
        frames.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    frames.append(sse({"type": "message_delta",
                       "delta": {"stop_reason": stop_reason or (
                                 "tool_use" if calls else "end_turn"), "stop_sequence": None},
                       "usage": {"output_tokens": out}}, "message_delta"))
    frames.append(sse({"type": "message_stop"}, "message_stop"))
    return frames


# ------------------------------------------------------------------------------ Mistral
def mistral_stream(text: list[str] = (), calls: list[tuple[str, str, str]] = (), *,
                   usage: tuple[int, int] = (12, 5), finish: str | None = None) -> list[str]:
    """Mistral sends each tool call whole in one delta; usage rides on the last chunk."""
    base = {"id": "cmpl-1", "object": "chat.completion.chunk", "created": 1, "model": MODEL}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None, **extra: Any) -> str:
        return sse({**base, "choices": [{"index": 0, "delta": delta,
                                         "finish_reason": finish_reason}], **extra})

    frames = [chunk({"role": "assistant", "content": ""})]
    frames += [chunk({"content": piece}) for piece in text]
    if calls:
        frames.append(chunk({"tool_calls": [
            {"id": call_id, "type": "function", "index": n,
             "function": {"name": name, "arguments": args}}
            for n, (call_id, name, args) in enumerate(calls)]}))
    prompt, completion = usage
    frames.append(chunk({"content": ""}, finish or ("tool_calls" if calls else "stop"),
                        usage={"prompt_tokens": prompt, "completion_tokens": completion,
                               "total_tokens": prompt + completion}))
    frames.append(sse("[DONE]"))
    return frames


def openai_error(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None,
                      "code": code}}


def anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def mistral_error(message: str) -> dict[str, Any]:
    return {"object": "error", "message": message, "type": "invalid_request_error",
            "code": None}
