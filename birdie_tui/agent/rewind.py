"""Rewind and fork: going back to just before one of the user's messages (docs/user-guide.md,
Rewind and fork).

Both cut the history at user message N, numbered as `/history` shows them (1 is the oldest;
None: the last one). The cut is always at a user message, so no tool call is left without its
answer; the kept part is repaired all the same (`repair_history`), as every model call does.

- `rewind(N)` drops message N and everything after from the session's own history, in one
  checkpoint write under the session's turn lock (as `/retry`), and returns N's text for the
  composer. The dropped messages are not lost: the same write keeps them in the graph state's
  `rewound` channel (`REWOUND_KEY`), bounded, which the export shows as "rewound".
- `fork(N)` copies the history before message N into a new session titled "fork of …", and
  leaves the original as it is. Message N itself is not copied: like a rewind, a fork goes
  back to just before the picked message, whose text the front end puts in the composer, so
  the one choice in the picker means the same place in both (Codex's Esc Esc backtrack too).

Counts (`agent/accounting.py`): a rewind takes its turns back as `/retry` does: `turns`
follows the user messages kept, the tokens spent stay in the totals and are carried into the
next turn's log entry; the dropped turns' `/cost` records stay, marked retried. A fork's
counts are its own: its copied turns count as turns but with no tokens (the original keeps
that bill), so the `/cost` of the two never adds a vendor's call twice; `forked_from` in the
fork's file says where its history came from.

A compaction summary covering a dropped message is dropped with it (it would tell the model
about what is gone); sub-agent children are threads of their own and are left alone.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from birdie_tui.agent.accounting import TokenAccount, counted_through, take_back_turn
from birdie_tui.agent.approvals import APPROVAL_RULES, APPROVED_SKILLS
from birdie_tui.agent.graph import replace_all
from birdie_tui.agent.history import repair_history
from birdie_tui.agent.host import AgentHost
from birdie_tui.mentions.attach import typed_text
from birdie_tui.agent.ledger import Price, agent_usage, call_cost, usage_of
from birdie_tui.agent.options import EngineError
from birdie_tui.agent.provenance import history_records
from birdie_tui.agent.session_history import SessionHistory
from birdie_tui.agent.session_state import (DISABLED_AGENTS, ENABLED_AGENTS, SessionState,
                                            thread_config)
from birdie_tui.agent.transcript import message_to_dict
from birdie_tui.store import TOKEN_LOG_LIMIT, SessionMeta
from birdie_tui.text import content_text

REWOUND_KEY = "rewound"  # the graph state's channel of dropped messages
FORKED_KEY = "forked_from"  # a fork's session file: {"session", "through", "turns", "at"}
REWOUND_KEPT = 20  # rewinds whose messages are kept (older ones: their count and tokens)
REWOUND_MESSAGES = 400  # messages kept of one rewind (the rest counted)
REWOUND_CHARS = 4_000  # of one message's text kept
# What a fork copies of the session's file besides its skill grants: the sub-agent grants,
# the approvals answered "always" and the prompt settings of that session.
FORK_KEYS = (ENABLED_AGENTS, DISABLED_AGENTS, APPROVED_SKILLS, APPROVAL_RULES,
             "prompt_settings")


# ---------------------------------------------------------------------- the cut
def user_positions(messages: Sequence[Any]) -> list[int]:
    """Where the user messages are, in /history's numbering order (1 is the first)."""
    return [i for i, m in enumerate(messages) if getattr(m, "type", "") == "human"]


def cut_at(messages: Sequence[Any], number: int | None, what: str) -> int:
    """The index of user message `number` (None: the last); EngineError in one line for a
    session without messages or a number /history does not show."""
    users = user_positions(messages)
    if not users:
        raise EngineError(f"nothing to {what}: this session has no message yet")
    if number is None:
        return users[-1]
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(users):
        raise EngineError(f"no message {number} to {what}: this session has messages 1 to "
                          f"{len(users)} (/history lists them)")
    return users[number - 1]


def summary_values(values: dict[str, Any], kept: Sequence[BaseMessage]) -> dict[str, Any]:
    """The state update for the compaction summary of a cut history: none when it still
    covers kept messages only; cleared when it covered a message that is gone."""
    through = values.get("summary_through")
    if not through and not values.get("summary"):
        return {}
    if through and any(m.id == through for m in kept):
        return {"summary": values.get("summary") or "", "summary_through": through}
    return {"summary": "", "summary_through": ""}


def own_usage(dropped: Sequence[BaseMessage], copied_through: str | None) -> tuple[int, int]:
    """Tokens of the dropped model calls this session paid for: in a fork, the calls copied
    from the original (up to its message `copied_through`) are the original's."""
    start = 0
    if copied_through:
        start = next((i + 1 for i, m in enumerate(dropped) if m.id == copied_through), 0)
    spent_in = spent_out = 0
    for msg in dropped[start:]:
        if isinstance(msg, AIMessage):
            used_in, used_out, _ = usage_of(msg)
        elif (child := agent_usage(msg)) is not None:
            used_in, used_out = child[1], child[2]
        else:
            continue
        spent_in, spent_out = spent_in + used_in, spent_out + used_out
    return spent_in, spent_out


def rewound_after(prior: Any, dropped: Sequence[BaseMessage], number: int,
                  spent: tuple[int, int]) -> dict[str, Any]:
    """The `rewound` channel with one more rewind: its messages as the export writes them
    (each text capped), its number and its own tokens; the last `REWOUND_KEPT` rewinds keep
    their messages, older ones only their count and tokens (`input`/`output` sum them all)."""
    old = prior if isinstance(prior, dict) else {}
    items = [_capped(message_to_dict(m)) for m in dropped]
    record = {"at": number, "when": datetime.now(timezone.utc).isoformat(),
              "messages": items[:REWOUND_MESSAGES],
              "not_kept": max(0, len(items) - REWOUND_MESSAGES),
              "input": spent[0], "output": spent[1]}
    records = [r for r in old.get("records") or () if isinstance(r, dict)] + [record]
    older = int(old.get("older") or 0) + max(0, len(records) - REWOUND_KEPT)
    return {"records": records[-REWOUND_KEPT:], "older": older,
            "input": int(old.get("input") or 0) + spent[0],
            "output": int(old.get("output") or 0) + spent[1]}


def _capped(item: dict[str, Any]) -> dict[str, Any]:
    text = item.get("content")
    if isinstance(text, str) and len(text) > REWOUND_CHARS:
        item["content"] = (f"{text[:REWOUND_CHARS]}\n… ({len(text) - REWOUND_CHARS:,} more "
                           "characters not kept)")
    return item


def fork_meta(source: SessionMeta, blank: SessionMeta, kept: Sequence[BaseMessage],
              number: int) -> SessionMeta:
    """`blank` (a provisional session) made the fork of `source` at user message `number`:
    its title, grants, and counts of its own (the copied turns with no tokens)."""
    turns = len(user_positions(kept))
    through = counted_through(kept) if kept else None
    blank.title = f"fork of {source.title or source.id}"
    blank.enabled_skills = list(source.enabled_skills)
    blank.disabled_skills = list(source.disabled_skills)
    for key in FORK_KEYS:
        if key in source.extra:
            blank.extra[key] = copy.deepcopy(source.extra[key])
    blank.extra[FORKED_KEY] = {"session": source.id, "through": through, "turns": turns,
                               "at": number}
    return copied_counts(blank, blank.extra[FORKED_KEY])


def copied_counts(meta: SessionMeta, forked: Any) -> SessionMeta:
    """`meta` counted as a fork (`forked`: its `forked_from` record) starts: the copied turns
    are turns, with no tokens and a `/cost` record saying where they came from, and counting
    goes on after the last copied message."""
    if not isinstance(forked, dict):
        return meta
    turns = int(forked.get("turns") or 0)
    meta.turns, meta.cost_usd = turns, 0.0
    meta.token_log = [{"input": 0, "output": 0} for _ in range(turns)][-TOKEN_LOG_LIMIT:]
    meta.turn_costs = [{"turn": n, "model": f"copied from {forked.get('session')}",
                        "input": 0, "cached": 0, "output": 0, "cost": 0.0}
                       for n in range(1, turns + 1)][-TOKEN_LOG_LIMIT:]
    meta.counted = {"through": forked.get("through"), "turns": turns}
    return meta


def add_rewound(meta: SessionMeta, rewound: Any, price: Price | None) -> SessionMeta:
    """Counts made from a history alone (a server's thread) with what its rewinds dropped
    added back to the totals, priced at `price`: spent is spent."""
    gone = rewound if isinstance(rewound, dict) else {}
    spent_in, spent_out = int(gone.get("input") or 0), int(gone.get("output") or 0)
    if spent_in or spent_out:
        meta.input_tokens += spent_in
        meta.output_tokens += spent_out
        cost = call_cost(price, spent_in, spent_out, 0)
        meta.cost_usd = None if cost is None or meta.cost_usd is None else meta.cost_usd + cost
    return meta


def rewound_counts(disk: SessionMeta, through: str | None, kept_turns: int,
                   kept: Sequence[BaseMessage]) -> bool | None:
    """The session file after a rewind (a `SessionStore.update` change): turns taken back to
    the user messages kept, as /retry takes one back (tokens carried, never un-spent). Writing
    the shorter history usually did it already (`accounting.settle` follows a history that
    lost counted turns); counts kept by someone else (Birdie) are taken back here."""
    changed = False
    while disk.turns > kept_turns:
        take_back_turn(disk, through)
        changed = True
    if disk.counted != {"through": through, "turns": disk.turns}:
        disk.counted = {"through": through, "turns": disk.turns}
        changed = True
    forked = disk.extra.get(FORKED_KEY)
    if isinstance(forked, dict) and forked.get("through") and \
            not any(m.id == forked["through"] for m in kept):
        # The copied part now ends earlier: what stays of it is still the original's.
        disk.extra[FORKED_KEY] = {**forked, "through": through, "turns": kept_turns}
        changed = True
    return True if changed else None


# ---------------------------------------------------------------------- the engine's part
class Rewinder:
    """The engine's rewind and fork of its open session."""

    def __init__(self, state: SessionState, host: AgentHost, history: SessionHistory,
                 tokens: TokenAccount):
        self._state = state
        self._host = host
        self._history = history
        self._tokens = tokens

    async def rewind(self, number: int | None = None) -> str:
        """Drop user message `number` (None: the last) and everything after; its text."""
        meta = self._state.require()
        if not meta.saved:
            raise EngineError("nothing to rewind: this session has no message yet")
        async with self._history.session_turn() as busy:
            if busy is not None:
                raise EngineError(busy)
            history = await self._history.messages()
            index = cut_at(history, number, "rewind")
            values = await self._values(meta.id)
            kept, _ = repair_history(history[:index])
            dropped = history[index:]
            kept_turns = len(user_positions(kept))
            forked = meta.extra.get(FORKED_KEY)
            copied = forked.get("through") if isinstance(forked, dict) else None
            update = {"messages": replace_all(kept), **summary_values(values, kept),
                      REWOUND_KEY: rewound_after(values.get(REWOUND_KEY), dropped,
                                                 kept_turns + 1, own_usage(dropped, copied))}
            # One write: the history is cut and the cut part kept together, whatever happens.
            await self._host.graph.aupdate_state(self._history.config(), update,
                                                 as_node="agent")
            through = counted_through(kept) if kept else None
            taken = self._host.sessions.update(
                meta.id, lambda disk: rewound_counts(disk, through, kept_turns, kept))
            if taken is not None:
                meta.absorb(taken)
        records = history_records(kept)
        self._state.last_call = records[-1] if records else None
        self._tokens.show_history(kept)
        # As typed: sent again, its @-mentions attach the files again.
        return typed_text(content_text(history[index].content))

    async def fork(self, number: int | None = None) -> SessionMeta:
        """A new saved session holding the history before user message `number` (None: the
        last); the open session is not changed nor switched (the door switches)."""
        source = self._state.require()
        if not source.saved:
            raise EngineError("nothing to fork: this session has no message yet")
        history = await self._history.messages()
        index = cut_at(history, number, "fork")
        values = await self._values(source.id)
        kept, _ = repair_history(history[:index])
        blank = self._host.sessions.provisional()
        meta = fork_meta(source, blank, kept, len(user_positions(kept)) + 1)
        self._host.sessions.create(meta=meta)  # the id may change: taken meanwhile
        if kept:
            config = thread_config(meta.id, self._host.options.max_tool_calls)
            await self._host.graph.aupdate_state(
                config, {"messages": kept, **summary_values(values, kept)}, as_node="agent")
        return meta

    async def rewound(self, session_id: str | None = None) -> dict[str, Any]:
        """The session's `rewound` channel ({} when nothing was rewound)."""
        if self._state.is_unsaved(session_id):
            return {}
        found = (await self._values(session_id or self._state.require().id)).get(REWOUND_KEY)
        return found if isinstance(found, dict) else {}

    async def _values(self, session_id: str) -> dict[str, Any]:
        state = await self._host.graph.aget_state(
            thread_config(session_id, self._host.options.max_tool_calls))
        return dict(state.values or {}) if state else {}


__all__ = ["FORKED_KEY", "REWOUND_KEY", "Rewinder", "add_rewound", "copied_counts", "cut_at", "fork_meta",
           "own_usage", "rewound_after", "rewound_counts", "summary_values", "user_positions"]
