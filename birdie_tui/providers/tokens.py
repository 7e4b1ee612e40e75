"""Cheap, dependency-free token estimates (≈4 characters per token) for usage reporting."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from birdie_tui.text import content_text

PER_MESSAGE_OVERHEAD = 4


def estimate_tokens(text: str) -> int:
    """Estimate the tokens in ``text``: 0 for empty, else max(1, ceil(len/4))."""
    if not text:
        return 0
    return max(1, math.ceil(len(text) / 4))


def estimate_message_tokens(messages: Iterable[Any]) -> int:
    """Estimate the tokens of messages: content text, tool-call args JSON, +4 per message."""
    total = 0
    for message in messages:
        total += PER_MESSAGE_OVERHEAD
        total += estimate_tokens(content_text(getattr(message, "content", message)))
        for call in getattr(message, "tool_calls", None) or ():
            args = call.get("args", {}) if isinstance(call, dict) else {}
            total += estimate_tokens(json.dumps(args, ensure_ascii=False, sort_keys=True))
    return total
