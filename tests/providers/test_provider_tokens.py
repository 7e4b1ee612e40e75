"""Token estimates used for usage reporting."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.providers.tokens import estimate_message_tokens, estimate_tokens


def test_estimate_tokens() -> None:
    """The token estimate is one token per four characters, rounded up."""
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


@given(st.text())
def test_estimate_tokens_bounds(text: str) -> None:
    """For any text the estimate is the ceiling of its length over four."""
    n = estimate_tokens(text)
    assert n == 0 if not text else 1 <= n and n * 4 >= len(text) > (n - 1) * 4


def test_estimate_message_tokens() -> None:
    """Message token estimates count text blocks and tool call args, not images."""
    assert estimate_message_tokens([]) == 0
    assert estimate_message_tokens([HumanMessage("abcdefgh")]) == 2 + 4
    blocks = HumanMessage([{"type": "text", "text": "abcd"}, {"type": "image_url", "image_url": {"url": "x" * 99}}])
    assert estimate_message_tokens([blocks]) == 1 + 4
    call = AIMessage("", tool_calls=[{"name": "t", "args": {"a": 1}, "id": "c"}])
    assert estimate_message_tokens([call]) == 4 + estimate_tokens('{"a": 1}')
