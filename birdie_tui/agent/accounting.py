"""What a turn cost, written to the session JSON (`turns`, token totals, `token_log`).

Rules (the session list, the token panel and a vendor's bill must agree):

- Every model call that completed is counted, even when the turn was then cancelled (Esc),
  failed, or its reader went away: a paid vendor bills it.
- A turn counts once. `/retry` takes the last turn back (`turns` − 1, its `token_log` entry
  removed) but keeps its tokens in the totals, since they were spent; they are parked in the
  session's `retry_carry` and folded into the entry of the turn that replaces it. So after a
  turn and any number of retries: `turns` == 1, one `token_log` entry, and that entry and the
  totals both equal the sum of every model call made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.store import SessionMeta, SessionStore

TITLE_CHARS = 60


def title_from(text: str) -> str | None:
    """The first line of the first message, shortened: a session's default title."""
    if not text.strip():
        return None
    first_line = text.strip().splitlines()[0]
    return first_line[:TITLE_CHARS] + ("…" if len(first_line) > TITLE_CHARS else "")


def usage_after(messages: Sequence[Any], user_message_id: str) -> tuple[int, int] | None:
    """Tokens of the model calls checkpointed after the user message `user_message_id`: the
    calls of a turn as the history (not the event stream) saw them complete. None if that
    message never reached the history."""
    spent_in = spent_out = 0
    for msg in reversed(messages):
        if isinstance(msg, HumanMessage) and msg.id == user_message_id:
            return spent_in, spent_out
        usage = getattr(msg, "usage_metadata", None) if isinstance(msg, AIMessage) else None
        if usage:
            spent_in += int(usage.get("input_tokens", 0) or 0)
            spent_out += int(usage.get("output_tokens", 0) or 0)
    return None


def record_turn(store: SessionStore, meta: SessionMeta, text: str, used_in: int,
                used_out: int, *, cached: int = 0, cost: float | None = 0.0,
                model: str | None = None) -> None:
    """Count one turn (finished, failed or cancelled) with the tokens of its completed calls
    (`cached` of them from the prompt cache) and what they cost (None: a price unknown), made
    by `model` (its label, for the per-turn records of `/cost`)."""
    if meta.title is None:
        meta.title = title_from(text)
    carry = meta.retry_carry or {}
    meta.retry_carry = None
    store.record_turn(meta, used_in, used_out,
                      carried=(int(carry.get("input", 0)), int(carry.get("output", 0))),
                      cached=cached, cost=cost, model=model)


def take_back_turn(store: SessionStore, meta: SessionMeta) -> None:
    """Un-count the last turn for a retry; its spent tokens stay in the totals and are carried."""
    carry = dict(meta.retry_carry or {"input": 0, "output": 0})
    if meta.token_log and meta.turns > 0:
        last = meta.token_log.pop()
        carry = {"input": carry.get("input", 0) + last.get("input", 0),
                 "output": carry.get("output", 0) + last.get("output", 0)}
    meta.turns = max(0, meta.turns - 1)
    meta.retry_carry = carry if carry["input"] or carry["output"] else None
    store.save(meta)
