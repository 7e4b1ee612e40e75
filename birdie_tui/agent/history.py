"""Keeping a conversation valid for every provider (docs/user-guide.md, Where data lives).

Invariant: an AI message with tool calls is immediately followed by exactly one tool message per
call, and no tool message stands anywhere else. `repair_history` restores it *in place* after a
cancel or crash; `history_problems` checks it (tests and the engine's own guard use it).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from birdie_tui.agent.calls import StepCall
from birdie_tui.mentions.attach import typed_text
from birdie_tui.text import content_text

CONTEXT_MESSAGES = 20
INTERRUPTED_TOOL_TEXT = "Tool call was interrupted before it returned a result."


def repair_history(
    messages: Sequence[BaseMessage], reason: str = INTERRUPTED_TOOL_TEXT
) -> tuple[list[BaseMessage], bool]:
    """Return (valid history, whether anything changed).

    Each unanswered tool call gets an error tool message right after its AI message; tool
    messages found later are moved into place; orphans and duplicates are dropped.
    """
    if _already_valid(messages):  # the usual case, checked without building anything
        return list(messages), False
    return _rebuild(messages, reason)


def _rebuild(messages: Sequence[BaseMessage], reason: str) -> tuple[list[BaseMessage], bool]:
    """The repair itself: the history rebuilt message by message."""
    out: list[BaseMessage] = []
    used: set[int] = set()  # positions of tool messages already placed

    def answer_for(call_id: str, after: int) -> int | None:
        # Prefer the block right after the AI message, then a later stray answer.
        for at in range(after + 1, len(messages)):
            msg = messages[at]
            if isinstance(msg, ToolMessage) and msg.tool_call_id == call_id and at not in used:
                return at
        return None

    for index, msg in enumerate(messages):
        if isinstance(msg, ToolMessage):
            continue  # placed after its AI message below, or dropped as an orphan
        out.append(msg)
        if not (isinstance(msg, AIMessage) and msg.tool_calls):
            continue
        for call in msg.tool_calls:
            call_id = call.get("id") or ""
            at = answer_for(call_id, index) if call_id else None
            if at is not None:
                used.add(at)
                out.append(messages[at])
            else:
                out.append(
                    ToolMessage(
                        content=reason,
                        tool_call_id=call_id,
                        name=call.get("name"),
                        status="error",
                    )
                )
    changed = len(out) != len(messages) or any(a is not b for a, b in zip(out, messages))
    return out, changed


_PLAIN = (HumanMessage, SystemMessage)


def _already_valid(messages: Sequence[BaseMessage]) -> bool:
    """True when `repair_history` would change nothing: each AI message's calls (all with an
    id) are answered right after it, in call order, and no other tool message stands anywhere.
    One pass on exact classes (an `isinstance` on a message costs more than the rest), no
    allocation per message: it runs before every model call. False means "not sure": any
    other message class sends the history to the full repair."""
    due: list[str] = []  # the call ids still to answer, in order
    for msg in messages:
        cls = type(msg)
        if cls is ToolMessage:
            if not due or msg.tool_call_id != due[0]:  # type: ignore[attr-defined]
                return False
            del due[0]
            continue
        if due or (cls is not AIMessage and cls not in _PLAIN):
            return False
        if cls is AIMessage and msg.tool_calls:  # type: ignore[attr-defined]
            due = [call.get("id") or "" for call in msg.tool_calls]  # type: ignore[attr-defined]
            if "" in due:
                return False
    return not due


def history_problems(messages: Sequence[BaseMessage]) -> list[str]:
    """Every violation of the invariant, as readable lines (empty list = valid)."""
    problems: list[str] = []
    index = 0
    while index < len(messages):
        msg = messages[index]
        if isinstance(msg, ToolMessage):
            problems.append(f"message {index}: tool message {msg.tool_call_id!r} without its call")
            index += 1
            continue
        index += 1
        if isinstance(msg, AIMessage) and msg.tool_calls:
            expected = [c.get("id") for c in msg.tool_calls]
            seen: list[str] = []
            while index < len(messages) and isinstance(reply := messages[index], ToolMessage):
                seen.append(reply.tool_call_id)
                index += 1
            if sorted(map(str, seen)) != sorted(map(str, expected)):
                problems.append(
                    f"message {index}: tool calls {expected} answered by {seen}"
                )
    return problems


def context_window(
    messages: Sequence[BaseMessage], limit: int = CONTEXT_MESSAGES
) -> list[BaseMessage]:
    """The last `limit` messages, cut only at a user message.

    If the current turn alone is longer than the limit, the window starts at that turn's user
    message instead (never mid-turn: a window starting at a tool message is invalid).
    """
    if len(messages) <= limit:
        return list(messages)
    start = len(messages) - limit
    for index in range(start, len(messages)):
        if isinstance(messages[index], HumanMessage):
            return list(messages[index:])
    for index in range(start - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return list(messages[index:])
    return list(messages[start:])


def latest_user_text(messages: Sequence[BaseMessage]) -> str:
    """The last user message as typed: a skill's trigger is matched against what the user
    wrote, not the files they @-mentioned."""
    for msg in reversed(messages):
        if isinstance(msg, HumanMessage):
            return typed_text(content_text(msg.content))
    return ""


def tool_calls_since_user(messages: Sequence[BaseMessage]) -> int:
    """How many tool calls the model made in the current turn (for the loop guard)."""
    count = 0
    for msg in reversed(messages):
        if isinstance(msg, HumanMessage):
            break
        if isinstance(msg, AIMessage):
            count += len(msg.tool_calls)
    return count


def calls_over_limit(messages: Sequence[BaseMessage], calls: Sequence[StepCall], cap: int) -> set[str]:
    """The ids of the pending step's calls beyond the turn's tool-call limit (`calls` are the
    last AI message's, already counted in `messages`). One model message may hold any number
    of calls: the guard between model calls alone would let them all run."""
    if cap <= 0:
        return set()
    room = max(0, cap - (tool_calls_since_user(messages) - len(calls)))
    return {call["id"] for call in calls[room:]}
