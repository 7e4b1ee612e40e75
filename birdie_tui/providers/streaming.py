"""Pieces every vendor adapter shares: tool-call chunk bookkeeping, usage metadata, content text.

The agent relies on one shape (the offline model's): text arrives as AIMessageChunks, tool calls
as ``tool_call_chunks`` with a stable ``index``, and usage exactly once, on the last chunk.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from langchain_core.messages.ai import UsageMetadata

SKIPPED_BLOCKS = ("tool_use", "tool_call", "function_call", "thinking", "reasoning",
                  "redacted_thinking")


class ToolCallChunks:
    """Turns a vendor's per-call keys (an index, a block number, an id) into LangChain
    tool_call_chunks: a stable index per call, id and name sent once, arguments accumulated."""

    def __init__(self) -> None:
        self._index: dict[Any, int] = {}
        self.calls: list[dict[str, str]] = []  # by index: id, name, args so far
        self._last_key: Any = None
        self._problems: dict[int, str] = {}  # by index: why the call cannot run

    def chunk(self, key: Any, *, id: str | None = None, name: str | None = None,
              args: Any = "") -> dict[str, Any]:
        """One tool_call_chunk; ``key=None`` continues the most recent call. A call gets an id
        of its own when the vendor sends none, a repeated one or not a string; a name that is
        not a string is dropped and the call flagged (see `invalid_args`)."""
        key = self._last_key if key is None else key
        self._last_key = key
        if not isinstance(args, str):  # some vendors send a ready dict
            args = json.dumps(args, ensure_ascii=False, default=str)
        bad_name = name is not None and not isinstance(name, str)
        problem = f"the tool name must be a string, not {_json_kind(name)}" if bad_name else ""
        name = None if bad_name else name
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.calls)
            call_id = id if isinstance(id, str) and id else ""
            if not call_id or any(call["id"] == call_id for call in self.calls):
                call_id = f"call_{hashlib.sha1(f'{key}:{index}'.encode()).hexdigest()[:20]}"
            self.calls.append({"id": call_id, "name": name or "", "args": ""})
            first = True
        else:
            first = False
        if problem:
            self._problems.setdefault(index, problem)
        call = self.calls[index]
        if not call["name"] and name:  # a name that arrives late is still sent once
            call["name"], first = name, True
        call["args"] += args or ""
        return {"type": "tool_call_chunk", "index": index, "args": args or "",
                "id": call["id"] if first else None, "name": call["name"] if first else None}

    def invalid_args(self) -> dict[str, str]:
        """Calls whose complete arguments are not one JSON object: id -> reason. LangChain's
        lenient parser would accept a cut-off ``{"a": "x`` — a tool must never run on that."""
        bad: dict[str, str] = {}
        for index, call in enumerate(self.calls):
            raw = call["args"].strip()
            if index in self._problems:
                bad[call["id"]] = self._problems[index]
                continue
            if not raw:
                continue  # no arguments: {}
            try:
                value = json.loads(raw)
            except json.JSONDecodeError as exc:
                problem = f"{exc.msg}, column {exc.colno}"
                bad[call["id"]] = f"arguments are not valid JSON ({problem}): {raw[:200]}"
                continue
            except RecursionError:
                bad[call["id"]] = "arguments are nested too deeply"
                continue
            if not isinstance(value, dict):
                bad[call["id"]] = f"arguments must be a JSON object, got {type(value).__name__}"
        return bad


def _json_kind(value: Any) -> str:
    """A JSON type name (for a message to the model)."""
    for types, kind in ((bool, "a boolean"), ((int, float), "a number"), (list, "an array"),
                        (dict, "an object")):
        if isinstance(value, types):
            return kind
    return f"a {type(value).__name__}"


def usage_metadata(
    input_tokens: int | None,
    output_tokens: int | None,
    *,
    cache_read: int | None = None,
    cache_creation: int | None = None,
    reasoning: int | None = None,
) -> UsageMetadata:
    """LangChain usage; ``input_tokens`` must already include cached tokens."""
    inp, out = int(input_tokens or 0), int(output_tokens or 0)
    usage: dict[str, Any] = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}
    details = {k: int(v) for k, v in (("cache_read", cache_read),
                                      ("cache_creation", cache_creation)) if v}
    if details:
        usage["input_token_details"] = details
    if reasoning:
        usage["output_token_details"] = {"reasoning": int(reasoning)}
    return usage  # type: ignore[return-value]


def vendor_text(content: Any) -> str:
    """The text of a message as sent to a vendor (unlike `birdie_tui.text.content_text`, images
    and unknown blocks become a note rather than vanish, so the model knows something was there;
    tool-call and reasoning blocks are sent separately or never)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type", "text")
            if kind in ("text", "text-plain") and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind not in SKIPPED_BLOCKS:
                parts.append(f"\n[{kind} content omitted: birdie-tui sends text only]\n")
    return "".join(parts)


def safe_id(call_id: str | None, pattern: str = r"[A-Za-z0-9_-]+", length: int = 0) -> str:
    """A tool-call id the vendor accepts, derived deterministically from ``call_id`` so the call
    and its result keep matching (e.g. Mistral wants exactly 9 of [a-zA-Z0-9])."""
    call_id = call_id or ""
    ok = re.fullmatch(pattern, call_id) is not None
    if ok and (not length or len(call_id) == length):
        return call_id
    digest = int.from_bytes(hashlib.sha256(call_id.encode()).digest(), "big")
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = []
    for _ in range(length or 24):
        digest, rem = divmod(digest, len(alphabet))
        out.append(alphabet[rem])
    return "".join(out) if length else "call_" + "".join(out)


def dump_args(args: Any) -> str:
    """Tool-call arguments as the JSON string OpenAI-style APIs expect."""
    return json.dumps(args if args is not None else {}, ensure_ascii=False)
