"""What a turn cost, written to the session JSON (`turns`, token totals, `token_log`).

Rules (the session list, the token panel and a vendor's bill must agree):

- The counts follow the checkpointed history, step by step (`settle`, run by the engine after
  each checkpoint it writes and when it reads a history back): a turn counts from the moment
  its user message is on disk, a model call's tokens from the moment its AI message is. So
  whatever moment the process dies at, `turns` is the number of user messages in the history
  and the totals the sum of its calls' usage (a kill in the millisecond between the checkpoint
  and the JSON write is caught up on the next open: `history_counted` says how far counting
  got). A call that completed but never reached the history (cancelled just then) is added
  when the turn ends (`add_unrecorded`): a paid vendor bills it.
- A turn counts once. `/retry` takes the last turn back (`turns` − 1, its `token_log` entry
  removed) but keeps its tokens in the totals, since they were spent; they are parked in the
  session's `retry_carry` and folded into the entry of the turn that replaces it. So after a
  turn and any number of retries: `turns` == 1, one `token_log` entry, and that entry and the
  totals both equal the sum of every model call made.
- A history that lost steps already counted (a failed write on a full disk) takes the count
  back: `turns` never stays ahead of the user messages the history holds.
- `TokenAccount` is the engine's one owner of all this: the running turn's `Ledger` and the
  session file's counts; the status bar, the token panel, `/cost` and the door read it.
- A session whose counts were kept by someone else (Birdie, or a version from before
  `history_counted`) is taken as it is: counting goes on from the end of its history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.agent.graph import AGENT_PENDING, PENDING_KEY
from birdie_tui.agent.ledger import (CallUsage, Ledger, Price, TokenLedger, add_agent_run, add_agent_spend,
                                    agent_usage, call_cost, usage_of)
from birdie_tui.store import TOKEN_LOG_LIMIT, SessionMeta, SessionStore
from birdie_tui.text import content_text, title_from


def usage_after(messages: Sequence[Any], user_message_id: str) -> tuple[int, int] | None:
    """Tokens of the model calls checkpointed after the user message `user_message_id`: the
    calls of a turn as the history (not the event stream) saw them complete. None if that
    message never reached the history."""
    spent_in = spent_out = 0
    for msg in reversed(messages):
        if isinstance(msg, HumanMessage) and msg.id == user_message_id:
            return spent_in, spent_out
        if isinstance(msg, AIMessage):
            used_in, used_out, _ = usage_of(msg)
            spent_in, spent_out = spent_in + used_in, spent_out + used_out
        elif (child := agent_usage(msg)) is not None:
            spent_in, spent_out = spent_in + child[1], spent_out + child[2]
    return None


def record_turn(store: SessionStore, meta: SessionMeta, text: str, used_in: int,
                used_out: int, *, cached: int = 0, cost: float | None = 0.0,
                model: str | None = None) -> None:
    """Count one whole turn at once with the tokens of its completed calls (`cached` of them
    from the prompt cache) and what they cost (None: a price unknown), made by `model` (its
    label, for the per-turn records of `/cost`). The engine counts step by step (`settle`)."""
    if meta.title is None:
        meta.title = title_from(text)
    carry = meta.retry_carry or {}
    meta.retry_carry = None
    store.record_turn(meta, used_in, used_out,
                      carried=(int(carry.get("input", 0)), int(carry.get("output", 0))),
                      cached=cached, cost=cost, model=model)


def take_back_turn(meta: SessionMeta, through: str | None) -> bool:
    """Un-count the last turn for a retry (a `SessionStore.update` change): its spent tokens
    stay in the totals and are carried; the history now ends at message `through`."""
    carry = dict(meta.retry_carry or {"input": 0, "output": 0})
    if meta.token_log and meta.turns > 0:
        last = meta.token_log.pop()
        carry = {"input": carry.get("input", 0) + last.get("input", 0),
                 "output": carry.get("output", 0) + last.get("output", 0)}
    meta.turns = max(0, meta.turns - 1)
    meta.retry_carry = carry if carry["input"] or carry["output"] else None
    meta.counted = {"through": through, "turns": meta.turns}
    return True


def settle(meta: SessionMeta, messages: Sequence[Any], *, price: Price | None,
           model: str = "") -> tuple[int, int]:
    """Count in `meta` (in place) what `messages`, the checkpointed history, holds beyond
    `meta.counted`: each user message a turn, each AI message's usage its tokens. Returns
    the (input, output) tokens added. A history that does not contain the last message
    counted (rewritten elsewhere), or counts kept by someone else, are taken as they are."""
    mark = meta.counted
    last = counted_through(messages)
    start = _resume_at(mark, meta.turns, messages)
    if start is None:
        if mark is not None and mark.get("turns") == meta.turns:
            _follow_lost_turns(meta, messages)  # our count, but its last message is gone
        meta.counted = {"through": last, "turns": meta.turns}
        return 0, 0
    added_in = added_out = 0
    for msg in messages[start:]:
        if isinstance(msg, HumanMessage):
            _open_turn(meta, msg, model)
        elif isinstance(msg, AIMessage) and msg.usage_metadata:
            spent_in, spent_out, cached = usage_of(msg)
            add_call(meta, spent_in, spent_out, cached, price)
            added_in, added_out = added_in + spent_in, added_out + spent_out
        elif (child := agent_usage(msg)) is not None:  # a sub-agent's calls, as one
            agent, spent_in, spent_out, cached, calls = child
            add_call(meta, spent_in, spent_out, cached, price)
            add_agent_spend(meta.extra, agent, spent_in, spent_out, calls,
                            call_cost(price, spent_in, spent_out, cached))
            add_agent_run(meta.extra, msg, meta.turns)
            added_in, added_out = added_in + spent_in, added_out + spent_out
    meta.counted = {"through": last, "turns": meta.turns}
    return added_in, added_out


def counted_through(messages: Sequence[Any]) -> str | None:
    """The id of the last message counting has seen for good. Stand-in answers the tools node
    will replace in place by id are skipped when one of them stands for a sub-agent call: its
    result carries the child's tokens, to be counted when it arrives."""
    index = len(messages)
    while index and messages[index - 1].additional_kwargs.get(PENDING_KEY):
        index -= 1
    standins = messages[index:]
    if not any(m.additional_kwargs.get(PENDING_KEY) == AGENT_PENDING for m in standins):
        index = len(messages)
    last = messages[index - 1].id if index else None
    return str(last) if last is not None else None


def _resume_at(mark: dict[str, Any] | None, turns: int, messages: Sequence[Any]) -> int | None:
    """Where counting goes on in `messages`; None: start counting from their end."""
    if mark is None or mark.get("turns") != turns:
        return None
    through = mark.get("through")
    if through is None:
        return 0
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].id == through:
            return index + 1
    return None


def _follow_lost_turns(meta: SessionMeta, messages: Sequence[Any]) -> None:
    """Turns counted from steps the history no longer holds (a write that failed after the
    history was read, on a full disk) are taken back, as /retry does: `turns` follows the
    user messages of the history; their tokens were spent, so they stay in the totals."""
    held = sum(isinstance(msg, HumanMessage) for msg in messages)
    while meta.turns > held:
        take_back_turn(meta, None)


def _open_turn(meta: SessionMeta, message: Any, model: str) -> None:
    if meta.title is None:
        meta.title = title_from(content_text(message.content))
    carry = meta.retry_carry or {}
    meta.retry_carry = None
    if meta.cost_usd is None and not (meta.input_tokens or meta.output_tokens):
        meta.cost_usd = 0.0  # a session that starts with prices recorded
    meta.turns += 1
    meta.token_log.append({"input": int(carry.get("input", 0)),
                           "output": int(carry.get("output", 0))})
    del meta.token_log[:-TOKEN_LOG_LIMIT]
    meta.turn_costs.append({"turn": meta.turns, "model": model, "input": 0, "cached": 0,
                            "output": 0, "cost": 0.0})
    del meta.turn_costs[:-TOKEN_LOG_LIMIT]


def add_call(meta: SessionMeta, spent_in: int, spent_out: int, cached: int,
             price: Price | None) -> None:
    """One model call's tokens: into the totals and into the current turn's entries."""
    cost = call_cost(price, spent_in, spent_out, cached)
    meta.input_tokens += spent_in
    meta.output_tokens += spent_out
    meta.cached_input_tokens += cached
    meta.cost_usd = None if cost is None or meta.cost_usd is None else meta.cost_usd + cost
    if meta.token_log:
        entry = meta.token_log[-1]
        entry["input"] = entry.get("input", 0) + spent_in
        entry["output"] = entry.get("output", 0) + spent_out
    if meta.turn_costs:
        record = meta.turn_costs[-1]
        for key, value in (("input", spent_in), ("output", spent_out), ("cached", cached)):
            record[key] = int(record.get(key, 0) or 0) + value
        record["cost"] = None if cost is None or record.get("cost") is None \
            else record["cost"] + cost


def add_unrecorded(meta: SessionMeta, spent_in: int, spent_out: int,
                   price: Price | None) -> bool:
    """Tokens of calls that completed but never reached the history (a `SessionStore.update`
    change): billed all the same."""
    if spent_in <= 0 and spent_out <= 0:
        return False
    add_call(meta, max(spent_in, 0), max(spent_out, 0), 0, price)
    return True


class PriceFacts(Protocol):
    """What accounting needs to know of the model in use (`AgentParts` has it)."""

    @property
    def price(self) -> Price | None: ...
    @property
    def model_label(self) -> str: ...
    @property
    def context_window(self) -> int | None: ...


class CountingStore(Protocol):
    """The one call accounting makes on a session store (both stores have it)."""

    def update(self, session_id: str, change: Callable[[SessionMeta], bool | None]
               ) -> SessionMeta | None: ...


class TokenAccount:
    """The engine's one owner of token accounting: the live `Ledger` of the running turn,
    the session file's counts (`settle` after each checkpoint, `finish_turn` at the end of a
    turn), and the figures every panel, `/cost` and the door read (`snapshot`)."""

    def __init__(self, sessions: CountingStore, facts: PriceFacts):
        self._sessions = sessions
        self._facts = facts
        self.ledger = Ledger()
        # Tokens this turn's checkpoints counted into the session file so far.
        self.turn_spent: tuple[int, int] = (0, 0)

    # ----------------------------------------------------------------- a turn
    def lock_taken(self) -> None:
        """The session's turn lock was just taken: nothing of this turn is counted yet."""
        self.turn_spent = (0, 0)

    def begin_turn(self) -> None:
        self.ledger.begin_turn()

    def add_call(self, input_tokens: int, output_tokens: int, cached: int = 0,
                 agent: str = "") -> None:
        """A model call completed (a turn's, a sub-agent's named `agent`, or a compaction
        summary's): priced now, at the rate of the session's model."""
        self.ledger.add_call(input_tokens, output_tokens, cached, self._facts.price, agent)

    def settle(self, meta: SessionMeta, messages: Sequence[Any]) -> None:
        """Count in the session file what `messages` (the checkpointed history, read under
        the session's turn lock) adds beyond what it counted."""
        spent = (0, 0)
        facts = self._facts

        def change(disk: SessionMeta) -> bool | None:
            nonlocal spent
            before = (disk.turns, disk.counted)
            spent = settle(disk, messages, price=facts.price, model=facts.model_label)
            if spent != (0, 0) or disk.turns != before[0]:
                return True
            return None if disk.counted == before[1] else False

        try:
            counted = self._sessions.update(meta.id, change)
        except OSError:  # a read-only home: counted on the next open that can write
            return
        if self.ledger.live:  # this turn's own calls (not what an earlier run left uncounted)
            self.turn_spent = (self.turn_spent[0] + spent[0], self.turn_spent[1] + spent[1])
        elif counted is not None:
            # Between turns the open session shows the counts at once; during one, the
            # ledger shows its calls live and `finish_turn` takes the file's counts at its end.
            meta.absorb(counted)

    def finish_turn(self, meta: SessionMeta, used_in: int, used_out: int) -> None:
        """Settle the turn: the session file counted it step by step from the history;
        calls that completed but never reached the history are added now, and the ledger
        gets a call the history saw complete before its usage event got out."""
        counted_in, counted_out = self.turn_spent
        used_in, used_out = max(used_in, counted_in), max(used_out, counted_out)
        seen_in = sum(c.input for c in self.ledger.calls)
        seen_out = sum(c.output for c in self.ledger.calls)
        if used_in > seen_in or used_out > seen_out:
            self.add_call(max(0, used_in - seen_in), max(0, used_out - seen_out))
        price = self._facts.price
        try:
            fresh = self._sessions.update(meta.id, lambda disk: add_unrecorded(
                disk, used_in - counted_in, used_out - counted_out, price) or None)
            if fresh is not None:
                meta.absorb(fresh)  # the counts as the file now holds them
        except OSError:
            pass  # counted from the history on the next open
        self.ledger.end_turn()

    # ----------------------------------------------------------------- what is shown
    def show_history(self, messages: Sequence[Any]) -> None:
        """A session was opened: the panels show its last turn's calls."""
        self.ledger.show_history(messages)

    def running_calls(self) -> tuple[CallUsage, ...]:
        """The calls of the turn running now (empty between turns)."""
        return tuple(self.ledger.calls) if self.ledger.live else ()

    def snapshot(self, meta: SessionMeta | None) -> TokenLedger:
        """The figures of `meta` (the open session, or None) and the running turn."""
        return self.ledger.snapshot(meta, context_window=self._facts.context_window,
                                    price=self._facts.price)
