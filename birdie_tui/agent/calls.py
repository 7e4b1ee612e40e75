"""A model's reply made safe to keep, show and send back, before the graph stores it.

A broken or hostile model (or server) may send anything: a tool call with no id, an empty or a
duplicate one; a name that is not a string; arguments that are not an object, that hold an
integer beyond 64 bits (the checkpoint's msgpack cannot store it), a lone surrogate (no UTF-8
encoder takes it: the next request, a stream-json line, the terminal would fail), or 10 MB.
`answerable_calls` turns each call into a repaired one (a fresh unique id; U+FFFD for a lone
surrogate) or one kept with empty arguments that the tools node answers with an error the model
can correct. So the history stays valid for every provider and no checkpoint grows past
`MAX_ARGS_CHARS` a call.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from birdie_tui.text import scrub_surrogates

INVALID_KEY = "invalid_tool_args"  # response_metadata: call id -> why it is not run
MAX_ARGS_CHARS = 512 * 1024  # a call's arguments, about their JSON length
MAX_DEPTH = 64  # nesting levels of arguments
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # what msgpack (checkpoints) and sqlite store
_REASON_CHARS = 300
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a tool name every vendor accepts (ours all are)
_ID = re.compile(r"[\x21-\x7e]{1,64}")  # printable ASCII, no space
_CALL_KWARGS = ("tool_calls", "function_call")  # raw copies of the calls some adapters keep
_CALL_BLOCKS = ("tool_use", "tool_call", "function_call")  # content blocks mirroring calls
_NAME_PROBLEMS = ("the tool name", "there is no tool")


class StepCall(TypedDict):
    """A stored tool call as `answerable_calls` left it: its id a string, unique in the history
    (LangChain's `ToolCall` allows None)."""

    name: str
    args: dict[str, Any]
    id: str
    type: NotRequired[Literal["tool_call"]]


class _Rejected(Exception):
    """Arguments that cannot be kept: `reason` says why, `path` where (filled while unwinding)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []

    def text(self) -> str:
        where = "".join(self.path).lstrip(".")
        return self.reason.replace("{where}", f"argument {where!r}" if where else "arguments")


def answerable_calls(response: Any, taken: Iterable[str] = ()) -> Any:
    """`response` with every tool call answerable and every value storable.

    Calls with malformed arguments (LangChain's `invalid_tool_calls`, flagged by a vendor
    adapter in response_metadata[INVALID_KEY], or found here) stay as calls with empty args,
    flagged, so the tools node answers each with an error. A call without a usable id, or with
    one already in `taken` (the history's) or in this reply, gets a fresh one."""
    if not isinstance(response, AIMessage):
        return response
    seen = set(taken)
    calls: list[dict[str, Any]] = []
    flagged: dict[str, str] = {}
    for entry, reason in _entries(response):
        call, problem = safe_call(entry, seen)
        if reason or problem:
            call["args"] = {}
            flagged[call["id"]] = scrub_surrogates(str(reason or problem))[:_REASON_CHARS]
        calls.append(call)
    update: dict[str, Any] = {}
    kwargs, content = response.additional_kwargs, response.content
    if response.invalid_tool_calls or calls != response.tool_calls:
        update.update(tool_calls=calls, invalid_tool_calls=[])  # the one record of the calls
        kwargs = {k: v for k, v in kwargs.items() if k not in _CALL_KWARGS}
        if isinstance(content, list):
            content = [b for b in content
                       if not (isinstance(b, dict) and b.get("type") in _CALL_BLOCKS)]
    metadata = {k: v for k, v in response.response_metadata.items() if k != INVALID_KEY}
    if flagged:
        metadata[INVALID_KEY] = flagged
    fields = {"content": storable(content), "additional_kwargs": storable(kwargs),
              "response_metadata": storable(metadata),
              "usage_metadata": storable(response.usage_metadata, big=_clamp)}
    update.update({k: v for k, v in fields.items() if v != getattr(response, k)})
    return response.model_copy(update=update) if update else response


def _entries(response: AIMessage) -> list[tuple[Any, str | None]]:
    """Every call of `response` (the invalid ones too) with the reason it was flagged, if any."""
    known = response.response_metadata.get(INVALID_KEY)
    known = known if isinstance(known, dict) else {}
    entries: list[tuple[Any, str | None]] = [
        (call, known.get(_text_or_none(call.get("id") if isinstance(call, dict) else None)))
        for call in response.tool_calls]
    entries += [({"name": bad.get("name"), "args": {}, "id": bad.get("id"), "type": "tool_call"},
                 known.get(_text_or_none(bad.get("id"))) or bad.get("error")
                 or f"arguments are not valid JSON: {str(bad.get('args'))[:200]}")
                for bad in response.invalid_tool_calls]
    return entries


def safe_call(entry: Any, seen: set[str]) -> tuple[dict[str, Any], str | None]:
    """(the call with a usable name, a fresh id if needed, clean args; why it cannot run)."""
    call = dict(entry) if isinstance(entry, dict) else {}
    call.setdefault("type", "tool_call")
    call["name"], problem = _safe_name(call.get("name"))
    call_id = call.get("id")
    if not (isinstance(call_id, str) and _ID.fullmatch(call_id)) or call_id in seen:
        call_id = f"call_{uuid.uuid4().hex[:24]}"
    seen.add(call_id)
    call["id"] = call_id
    call["args"], bad_args = clean_args(call.get("args", {}))
    return call, problem or bad_args


def _safe_name(name: Any) -> tuple[str, str | None]:
    if not isinstance(name, str):
        return "unnamed_tool", f"the tool name must be a string, not {_kind(name)}"
    if _NAME.fullmatch(name):
        return name, None
    if not name:
        return "unnamed_tool", "the tool name is empty"
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", name[:64])
    return safe, f"there is no tool named {scrub_surrogates(name[:80])!r}"


def clean_args(args: Any) -> tuple[dict[str, Any], str | None]:
    """(arguments safe to store and send, None), or ({}, why they cannot be kept)."""
    if not isinstance(args, dict):
        return {}, f"arguments must be a JSON object, not {_kind(args)}"
    budget = [MAX_ARGS_CHARS]
    try:
        return _clean(args, 0, budget), None
    except _Rejected as exc:
        return {}, exc.text()


def _clean(value: Any, depth: int, budget: list[int]) -> Any:
    if isinstance(value, str):
        _spend(budget, len(value) + 2)
        return scrub_surrogates(value)
    if value is None or isinstance(value, bool):
        _spend(budget, 5)
        return value
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise _Rejected("{where} is an integer beyond 64 bits: send it as a string")
        _spend(budget, 20)
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Rejected("{where} is not a finite number")
        _spend(budget, 24)
        return value
    if not isinstance(value, (dict, list, tuple)):
        raise _Rejected(f"{{where}} is not a JSON value (it is a {type(value).__name__})")
    if depth >= MAX_DEPTH:
        raise _Rejected(f"{{where}} is nested more than {MAX_DEPTH} levels deep")
    items = value.items() if isinstance(value, dict) else enumerate(value)
    out: dict[str, Any] = {}
    for key, item in items:
        name = scrub_surrogates(key) if isinstance(key, str) else str(key)
        _spend(budget, len(name) + 4)
        try:
            out[name] = _clean(item, depth + 1, budget)
        except _Rejected as exc:
            exc.path.insert(0, f".{name[:40]}" if isinstance(value, dict) else f"[{key}]")
            raise
    return out if isinstance(value, dict) else list(out.values())


def _spend(budget: list[int], size: int) -> None:
    budget[0] -= size
    if budget[0] < 0:
        raise _Rejected(f"arguments are too large: over {MAX_ARGS_CHARS:,} characters, the "
                        "limit (send less, or in parts)")


def storable(value: Any, depth: int = 0, *, big: Callable[[int], Any] = str) -> Any:
    """`value` as a checkpoint can store and every encoder take: lone surrogates replaced,
    integers beyond 64 bits through `big` (as text by default). Other objects are left to
    the checkpoint's serializer."""
    if isinstance(value, str):
        return scrub_surrogates(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value if INT64_MIN <= value <= INT64_MAX else big(value)
    if isinstance(value, (dict, list, tuple)) and depth >= MAX_DEPTH:
        return "(nested too deeply)"
    if isinstance(value, dict):
        return {storable(k, depth + 1, big=big): storable(v, depth + 1, big=big)
                for k, v in value.items()}
    if isinstance(value, list) or type(value) is tuple:
        items = [storable(v, depth + 1, big=big) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def _clamp(value: int) -> int:
    return max(0, min(INT64_MAX, value))


def safe_result(message: ToolMessage) -> ToolMessage:
    """A tool's result made storable too (an MCP server may send a lone surrogate)."""
    content, artifact = storable(message.content), storable(message.artifact)
    if content == message.content and artifact == message.artifact:
        return message
    return message.model_copy(update={"content": content, "artifact": artifact})


def invalid_call_text(name: str, reason: str) -> str:
    """What the model is told about a call that was not run (see `answerable_calls`)."""
    if reason.startswith(_NAME_PROBLEMS):
        return f"Invalid tool call: {reason}. Call one of the tools you were given, by name."
    return (f"Invalid arguments for {name!r}: {reason}. "
            "Call it again with valid arguments, as one JSON object.")


def step_calls(message: AIMessage | None) -> list[StepCall]:
    """The calls of a pending step (none without one), each with its id (as `call_ids` reads them)."""
    if message is None:
        return []
    return [StepCall(name=c["name"], args=c["args"], id=c.get("id") or "", type="tool_call")
            for c in message.tool_calls]


def call_ids(messages: Sequence[BaseMessage]) -> set[str]:
    """The ids of every tool call in a history (a new call must not reuse one)."""
    return {call.get("id") or "" for msg in messages if isinstance(msg, AIMessage)
            for call in msg.tool_calls}


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _kind(value: Any) -> str:
    """A JSON type name for a message to the model."""
    if value is None:
        return "null"
    for types, name in ((bool, "a boolean"), ((int, float), "a number"), (str, "a string"),
                        ((list, tuple), "an array"), (dict, "an object")):
        if isinstance(value, types):
            return name
    return f"a {type(value).__name__}"
