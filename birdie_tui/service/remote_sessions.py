"""Threads as sessions for `RemoteBirdie`: the browser's rows from thread metadata, and the
figures a session shows (token ledger, /cost, titles) from the thread state's messages — the
usage each AI message carries, as the local engine counts them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from birdie_tui.agent.ledger import CallUsage, Price, TokenLedger, call_cost, usage_of
from birdie_tui.service.remote_client import META_KEY
from birdie_tui.service.rows import CostReport, SessionRow, TurnCost
from birdie_tui.text import title_from

def birdie_meta(thread: dict[str, Any] | None) -> dict[str, Any]:
    """The thread's `birdie` metadata (a copy; empty when there is none)."""
    meta = (thread or {}).get("metadata") or {}
    found = meta.get(META_KEY) if isinstance(meta, dict) else None
    return dict(found) if isinstance(found, dict) else {}


def first_user_text(values: Any) -> str:
    for item in (values or {}).get("messages", ()) if isinstance(values, dict) else ():
        if isinstance(item, dict) and item.get("type") == "human":
            content = item.get("content")
            return content if isinstance(content, str) else str(content)
    return ""


def thread_row(thread: dict[str, Any], current: str | None) -> SessionRow:
    meta = birdie_meta(thread)
    title = meta.get("title") or title_from(first_user_text(thread.get("values"))) \
        or "(untitled)"
    return SessionRow(id=str(thread["thread_id"]), title=str(title),
                      updated_at=str(thread.get("updated_at") or ""),
                      turns=_int(meta.get("turns")), input_tokens=_int(meta.get("input_tokens")),
                      output_tokens=_int(meta.get("output_tokens")),
                      current=thread["thread_id"] == current,
                      created_at=str(thread.get("created_at") or ""),
                      written_by=_written_by(meta))


def _written_by(meta: dict[str, Any]) -> str:
    """"user@host" of the client that last ran a turn on the thread."""
    user, host = str(meta.get("last_user") or ""), str(meta.get("last_host") or "")
    return f"{user}@{host}" if user and host else user or host


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


# ---------------------------------------------------------------------- figures
@dataclass
class Figures:
    """What a thread's history spent: per turn, the calls (usage of each AI message)."""

    turns: list[list[CallUsage]] = field(default_factory=list)
    before_first: list[CallUsage] = field(default_factory=list)  # calls before any user message

    @property
    def calls(self) -> list[CallUsage]:
        return [c for turn in ([self.before_first] + self.turns) for c in turn]

    @property
    def input(self) -> int:
        return sum(c.input for c in self.calls)

    @property
    def output(self) -> int:
        return sum(c.output for c in self.calls)

    @property
    def cached(self) -> int:
        return sum(c.cached for c in self.calls)


def figures_of(messages: Sequence[Any], price: Price | None) -> Figures:
    figures = Figures()
    for msg in messages:
        kind = getattr(msg, "type", "")
        if kind == "human":
            figures.turns.append([])
            continue
        if kind != "ai" or not msg.usage_metadata:
            continue
        spent_in, spent_out, cached = usage_of(msg)
        call = CallUsage(spent_in, spent_out, cached, call_cost(price, spent_in, spent_out,
                                                                cached))
        (figures.turns[-1] if figures.turns else figures.before_first).append(call)
    return figures


def ledger_of(figures: Figures, live: Sequence[CallUsage], *, context_window: int | None,
              price: Price | None) -> TokenLedger:
    """The token panel's snapshot: the thread's recorded calls plus a running turn's `live`
    calls (not in the thread state yet)."""
    calls = [*figures.calls, *live]
    session_in = sum(c.input for c in calls)
    session_out = sum(c.output for c in calls)
    cached = sum(c.cached for c in calls)
    last = tuple(live) if live else tuple(figures.turns[-1] if figures.turns else ())
    return TokenLedger(calls=last, context_window=context_window, session_in=session_in,
                       session_out=session_out, session_cached=cached,
                       per_turn=tuple(sum(c.input + c.output for c in t) for t in figures.turns),
                       cost_usd=call_cost(price, session_in, session_out, cached),
                       turns=len(figures.turns))


def cost_report(figures: Figures, live: Sequence[CallUsage], *, model: str,
                price: Price | None) -> CostReport:
    rows = [_turn_cost(n, calls, model) for n, calls in enumerate(figures.turns, 1)]
    if live:
        rows.append(_turn_cost(len(figures.turns) + 1, list(live), model, running=True))
    every = [*figures.calls, *live]
    spent_in, spent_out = sum(c.input for c in every), sum(c.output for c in every)
    cached = sum(c.cached for c in every)
    return CostReport(model=model, turns=len(figures.turns), input=spent_in, cached=cached,
                      output=spent_out, cost_usd=call_cost(price, spent_in, spent_out, cached),
                      per_turn=tuple(rows))


def _turn_cost(number: int, calls: list[CallUsage], model: str, *,
               running: bool = False) -> TurnCost:
    costs = [c.cost for c in calls]
    return TurnCost(turn=number, model=model, input=sum(c.input for c in calls),
                    cached=sum(c.cached for c in calls), output=sum(c.output for c in calls),
                    cost=None if any(c is None for c in costs) else sum(c for c in costs if c),
                    running=running)


@dataclass
class ExportMeta:
    """What `agent.export` reads of a session (the local SessionMeta's fields)."""

    id: str
    title: str | None
    created_at: str
    updated_at: str
    turns: int
    input_tokens: int
    output_tokens: int
