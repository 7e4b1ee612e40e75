"""Which messages go to the model: as many recent whole user turns as a token budget allows.

This replaces the fixed "last 20 messages" of `history.context_window`. Nothing is removed from
the checkpoint: the window is only what one model call sees.

Typical use before each model call::

    budget = history_budget(catalog.context_window(vendor, model),
                            fixed_tokens=estimate_tokens(system_prompt) + schema_tokens)
    window = budget_window(messages, budget)
    await model.ainvoke([SystemMessage(system_prompt), *window.messages])

`window.dropped > 0` means older messages were left out: the moment to fold them into the
rolling summary (`birdie_tui.agent.compaction`).

Cut rule: the window starts at index 0 or just before a `HumanMessage`, so an AI tool call is
never separated from its tool messages and a valid history gives a valid window. The current
turn (from the last user message on) is always sent whole, even when it alone exceeds the budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from birdie_tui.providers.tokens import PER_MESSAGE_OVERHEAD, estimate_tokens
from birdie_tui.text import content_text

# An unknown model (no catalog entry) is assumed to have this window: small enough for most
# local and older models, large enough for a useful history.
DEFAULT_CONTEXT_WINDOW = 32_000
# The history budget never drops below this, whatever the prompt and reserve take.
MIN_HISTORY_BUDGET = 1_000
# Room kept for the reply: min(MAX_OUTPUT_RESERVE, OUTPUT_RESERVE_SHARE × window).
MAX_OUTPUT_RESERVE = 8_000
OUTPUT_RESERVE_SHARE = 0.20
# Share of the window held back because estimates are ≈4 characters a token, which undercounts
# code, JSON and non-Latin scripts.
ESTIMATE_MARGIN = 0.05
# A flat estimate for an image block (its base64 length says nothing about its tokens).
IMAGE_TOKENS = 1_000

TokenCounter = Callable[[BaseMessage], int]


@dataclass(frozen=True)
class Window:
    """The part of a history sent to the model.

    `messages` is `history[start:]`; `tokens` their estimated total (by the counter used);
    `dropped` how many older messages are not sent (always equal to `start`).
    """

    messages: list[BaseMessage]
    start: int
    tokens: int
    dropped: int


def message_tokens(msg: BaseMessage) -> int:
    """Estimated tokens of one message: its text, its tool calls (name and JSON arguments),
    reasoning text and images (flat `IMAGE_TOKENS` each) in block content, plus a per-message
    overhead. Computed every time, without a cache (measured: under 1 µs for a text message,
    ~3 µs with a tool call; 5,000 messages in ~9 ms), and `budget_window` only counts the
    messages it sends plus part of the turn that does not fit."""
    content = msg.content
    total = PER_MESSAGE_OVERHEAD + estimate_tokens(content_text(content))
    if isinstance(content, list):
        total += _non_text_tokens(content)
    for call in msg.tool_calls if isinstance(msg, AIMessage) else ():
        args = json.dumps(call.get("args") or {}, ensure_ascii=False, default=str)
        total += estimate_tokens(str(call.get("name") or "")) + estimate_tokens(args)
    return total


def _non_text_tokens(blocks: list[Any]) -> int:
    """Images and reasoning blocks, which `content_text` skips but a provider still reads."""
    total = 0
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("image", "image_url", "input_image"):
            total += IMAGE_TOKENS
        elif kind in ("thinking", "reasoning"):
            text = block.get(kind)
            total += estimate_tokens(text) if isinstance(text, str) else 0
    return total


def budget_window(
    messages: Sequence[BaseMessage], budget_tokens: int, *, count: TokenCounter = message_tokens
) -> Window:
    """The most recent whole user turns whose estimated tokens fit `budget_tokens`.

    Reads backwards, one turn (a user message and everything after it) at a time, and stops at
    the first turn that would not fit: only the messages sent, plus part of the turn that
    overflows, are counted. The current turn is always sent, even over budget. Messages before
    the first user message (a greeting, a system note) are sent only with the whole history.
    A history without user messages, or one that fits, is sent whole.
    """
    total = 0  # tokens of the accepted part, messages[start:]
    block = 0  # tokens of the turn being read, messages[index:start]
    start = len(messages)
    current = True  # still inside the current turn, which is sent whatever its size
    for index in range(len(messages) - 1, -1, -1):
        msg = messages[index]
        block += count(msg)
        if not current and total + block > budget_tokens:
            break
        if index == 0 or isinstance(msg, HumanMessage):
            total, block, start, current = total + block, 0, index, False
    return Window(messages=list(messages[start:]), start=start, tokens=total, dropped=start)


def output_reserve(context_window_tokens: int) -> int:
    """Tokens kept free for the reply: min(8,000, 20 % of the window)."""
    return min(MAX_OUTPUT_RESERVE, int(context_window_tokens * OUTPUT_RESERVE_SHARE))


def history_budget(
    context_window_tokens: int | None,
    *,
    fixed_tokens: int = 0,
    reserve_output: int | None = None,
) -> int:
    """Tokens the history may use in one model call.

    The window (`DEFAULT_CONTEXT_WINDOW`, 32,000, when None or not positive: an unknown model)
    minus `fixed_tokens` (system prompt, rolling summary and tool schemas, estimated by the
    caller, e.g. `estimate_tokens(prompt) + estimate_tokens(json.dumps(schemas))`), minus
    `reserve_output` (default `output_reserve(window)`: min(8,000, 20 % of the window)), minus
    a 5 % margin for estimate error; never below `MIN_HISTORY_BUDGET` (1,000).
    """
    window = context_window_tokens if context_window_tokens and context_window_tokens > 0 \
        else DEFAULT_CONTEXT_WINDOW
    reserve = output_reserve(window) if reserve_output is None else max(0, reserve_output)
    margin = int(window * ESTIMATE_MARGIN)
    return max(MIN_HISTORY_BUDGET, window - max(0, fixed_tokens) - reserve - margin)


def message_over_window(text: str, context_window_tokens: int | None, *,
                        fixed_tokens: int = 0) -> str | None:
    """Why a user message cannot go to the model (None when it fits, or the window is
    unknown): its estimated tokens exceed the window less the fixed part (prompt, tools) and
    the reply's reserve. The current turn is always sent whole, so neither the history budget
    nor compaction can make room for it."""
    if not context_window_tokens or context_window_tokens <= 0:
        return None  # an unknown model: 32k is a guess, too small to refuse on
    tokens = message_tokens(HumanMessage(content=text))
    room = context_window_tokens - output_reserve(context_window_tokens) - max(0, fixed_tokens)
    if tokens <= room:
        return None
    return (f"this message is ≈{tokens:,} tokens, over the ≈{max(room, 0):,} the model's "
            f"{context_window_tokens:,}-token context window leaves for it (after the prompt "
            "and room for the reply); it was not sent. Send less (save it to a file and ask "
            "for the part that matters), or switch to a model with a bigger window (/model)")
