"""The token ledger: the one owner of what the model calls cost, per call, per turn, per session.

The engine feeds it every model call as it completes (`add_call`) and tells it when a turn
starts and ends; the session file (`agent.accounting`) keeps the recorded totals. Everything
that shows tokens or cost (status bar, token panel, `sessions list`, the session JSON) reads
`snapshot()` or those recorded totals, never a running count of its own; `/cost` is
`cost_report`. Both doors call these: the local one with its session file's counts, the
remote one with the counts of a server thread's history (`settle` over its messages).

Cost: each call is priced when it completes, at the list price of the model that made it, with
cached input at the cached rate. A session whose calls were all priced shows their sum; a
session with an unpriced call, or older than this ledger, is estimated at today's rate.
Plain dataclasses: importing this module costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Price = tuple[float, float, float]  # USD per million: input, output, cached input


def usage_of(message: Any) -> tuple[int, int, int]:
    """(input, output, cached input) tokens of a model call, from the usage its AI message
    carries (LangChain's `usage_metadata`); zeros when it reports none."""
    usage = getattr(message, "usage_metadata", None)
    if not usage:
        return 0, 0, 0
    details = usage.get("input_token_details") or {}
    return (int(usage.get("input_tokens", 0) or 0), int(usage.get("output_tokens", 0) or 0),
            int(details.get("cache_read", 0) or 0))

# On a sub-agent call's result message: what the child spent ({agent, child, input, output,
# cached, calls}); counted like a model call's usage (`agent_usage`).
AGENT_USAGE_KEY = "birdie_agent"
AGENT_SPEND_KEY = "agent_spend"  # the session file: {agent: {calls, input, output, cost}}
AGENT_RUNS_KEY = "agent_runs"  # the session file: its sub-agent calls, oldest first
AGENT_RUNS_LIMIT = 200


def add_agent_run(extra: dict[str, Any], message: Any, turn: int) -> None:
    """Note a sub-agent call (its result `message`) among the session's runs."""
    record = message.additional_kwargs.get(AGENT_USAGE_KEY) or {}
    runs = extra.get(AGENT_RUNS_KEY)
    if not isinstance(runs, list):
        runs = extra[AGENT_RUNS_KEY] = []
    runs.append({"child": str(record.get("child", "")), "agent": str(record.get("agent", "")),
                 "turn": turn, "status": "error" if message.status == "error" else "done",
                 "input": record.get("input", 0), "output": record.get("output", 0),
                 "calls": record.get("calls", 0)})
    del runs[:-AGENT_RUNS_LIMIT]


def child_threads(extra: dict[str, Any], session_id: str) -> list[str]:
    """The threads of a session's recorded sub-agent calls (only ids under the session)."""
    runs = extra.get(AGENT_RUNS_KEY)
    return [str(run["child"]) for run in (runs if isinstance(runs, list) else ())
            if isinstance(run, dict) and str(run.get("child", "")).startswith(f"{session_id}/agent/")]


def agent_usage(message: Any) -> tuple[str, int, int, int, int] | None:
    """(agent, input, output, cached, calls) a sub-agent call's result carries; None for any
    other message."""
    if getattr(message, "type", None) != "tool":
        return None
    record = message.additional_kwargs.get(AGENT_USAGE_KEY)
    if not isinstance(record, dict):
        return None

    def count(key: str) -> int:
        value = record.get(key, 0)
        return value if isinstance(value, int) and value > 0 else 0

    return (str(record.get("agent", "")), count("input"), count("output"), count("cached"),
            count("calls"))


def add_agent_spend(extra: dict[str, Any], agent: str, spent_in: int, spent_out: int,
                    calls: int, cost: float | None) -> None:
    """Add one sub-agent call's spend to a session's per-agent record (its `extra`)."""
    book = extra.get(AGENT_SPEND_KEY)
    if not isinstance(book, dict):
        book = extra[AGENT_SPEND_KEY] = {}
    entry = book.get(agent)
    if not isinstance(entry, dict):
        entry = book[agent] = {"calls": 0, "input": 0, "output": 0, "cost": 0.0}
    entry["calls"] = int(entry.get("calls", 0) or 0) + calls
    entry["input"] = int(entry.get("input", 0) or 0) + spent_in
    entry["output"] = int(entry.get("output", 0) or 0) + spent_out
    before = entry.get("cost")
    entry["cost"] = None if cost is None or not isinstance(before, (int, float)) \
        else before + cost


def agent_spends(extra: dict[str, Any], live: Sequence[CallUsage]) -> tuple[AgentSpend, ...]:
    """Per sub-agent: what the session file recorded plus the running turn's calls."""
    sums: dict[str, list[Any]] = {}
    book = extra.get(AGENT_SPEND_KEY)
    for name, entry in (book.items() if isinstance(book, dict) else ()):
        if isinstance(entry, dict):
            cost = entry.get("cost")
            sums[str(name)] = [int(entry.get("calls", 0) or 0), int(entry.get("input", 0) or 0),
                               int(entry.get("output", 0) or 0),
                               float(cost) if isinstance(cost, (int, float)) else None]
    for call in live:
        if call.agent:
            entry = sums.setdefault(call.agent, [0, 0, 0, 0.0])
            entry[0] += 1
            entry[1] += call.input
            entry[2] += call.output
            entry[3] = None if entry[3] is None or call.cost is None else entry[3] + call.cost
    return tuple(AgentSpend(name, *values) for name, values in sorted(sums.items()))


@dataclass(frozen=True)
class CallUsage:
    """One completed model call."""

    input: int
    output: int
    cached: int = 0  # of `input`, read from the vendor's prompt cache
    cost: float | None = None  # None: the model's price is unknown
    agent: str = ""  # a sub-agent's call: its name ("" : the session's own model call)


@dataclass(frozen=True)
class AgentSpend:
    """What one sub-agent's calls cost in this session."""

    name: str
    calls: int
    input: int
    output: int
    cost: float | None  # None: a price unknown


@dataclass(frozen=True)
class TokenLedger:
    """A snapshot of the ledger, as every panel shows it."""

    calls: tuple[CallUsage, ...] = ()  # the running (or last) turn's model calls
    context_window: int | None = None
    session_in: int = 0
    session_out: int = 0
    session_cached: int = 0
    per_turn: tuple[int, ...] = ()  # total tokens per recorded turn, oldest first
    cost_usd: float | None = None  # None: price unknown
    turns: int = 0
    agents: tuple[AgentSpend, ...] = ()  # per sub-agent, this session (running turn included)

    @property
    def context_tokens(self) -> int:
        """Input tokens of the session's latest model call: how full its context is (0 until
        known). A sub-agent's call fills its own context, not this one."""
        own = [c for c in self.calls if not c.agent]
        return own[-1].input if own else 0


def call_cost(price: Price | None, input_tokens: int, output_tokens: int,
              cached: int = 0) -> float | None:
    if price is None:
        return None
    per_in, per_out, per_cached = price
    cached = min(max(cached, 0), input_tokens)
    return ((input_tokens - cached) * per_in + cached * per_cached
            + output_tokens * per_out) / 1_000_000


class Ledger:
    """The engine's running account: the calls of the current turn, not yet in the session file,
    and the calls of the last turn once it is recorded (the panels keep showing them)."""

    def __init__(self) -> None:
        self.calls: list[CallUsage] = []
        self.live = False  # a turn is running: its calls are not in the session totals yet

    def begin_turn(self) -> None:
        self.calls = []
        self.live = True

    def add_call(self, input_tokens: int, output_tokens: int, cached: int,
                 price: Price | None, agent: str = "") -> CallUsage:
        call = CallUsage(input_tokens, output_tokens, cached,
                         call_cost(price, input_tokens, output_tokens, cached), agent)
        self.calls.append(call)
        return call

    def turn_cost(self) -> float | None:
        costs = [c.cost for c in self.calls]
        return None if any(c is None for c in costs) else sum(c for c in costs if c)

    def turn_cached(self) -> int:
        return sum(c.cached for c in self.calls)

    def end_turn(self) -> None:
        """The turn is recorded in the session file: its calls now count there."""
        self.live = False

    def show_history(self, messages: Iterable[Any]) -> None:
        """After a session is opened: the last turn's calls, from the checkpointed history."""
        calls: list[CallUsage] = []
        for msg in messages:
            if getattr(msg, "type", None) == "human":
                calls = []
            if getattr(msg, "type", None) == "ai" and msg.usage_metadata:
                calls.append(CallUsage(*usage_of(msg)))
            elif (child := agent_usage(msg)) is not None:
                calls.append(CallUsage(child[1], child[2], child[3], agent=child[0]))
        self.calls, self.live = calls, False

    def snapshot(self, meta: Any, *, context_window: int | None,
                 price: Price | None) -> TokenLedger:
        """The figures for `meta` (the open session's metadata, or None) and this turn."""
        live: Sequence[CallUsage] = self.calls if self.live else ()
        session_in = (meta.input_tokens if meta else 0) + sum(c.input for c in live)
        session_out = (meta.output_tokens if meta else 0) + sum(c.output for c in live)
        session_cached = (meta.cached_input_tokens if meta else 0) + sum(c.cached for c in live)
        recorded = meta.cost_usd if meta is not None else 0.0
        live_costs = [c.cost for c in live]
        if recorded is not None and all(c is not None for c in live_costs):
            cost: float | None = recorded + sum(c for c in live_costs if c)
        else:  # an unpriced call, or a session from before prices were recorded
            cost = call_cost(price, session_in, session_out, session_cached)
        per_turn = tuple(int(e.get("input", 0)) + int(e.get("output", 0))
                         for e in (meta.token_log if meta else ()))
        return TokenLedger(calls=tuple(self.calls), context_window=context_window,
                           session_in=session_in, session_out=session_out,
                           session_cached=session_cached, per_turn=per_turn, cost_usd=cost,
                           turns=meta.turns if meta else 0,
                           agents=agent_spends(meta.extra if meta else {}, live))


@dataclass(frozen=True)
class TurnCost:
    """One row of `/cost`: what a turn's model calls used and cost."""

    turn: int
    model: str  # the model's label; "" when the record did not say
    input: int
    cached: int  # of `input`, read from the vendor's prompt cache
    output: int
    cost: float | None  # None: a price unknown
    retried: bool = False  # taken back by /retry: the same turn number follows
    running: bool = False  # the turn under way (its calls so far)


@dataclass(frozen=True)
class CostReport:
    """`/cost`: the session's totals (the token ledger's) and its per-turn records."""

    model: str  # the model in use now
    turns: int
    input: int
    cached: int
    output: int
    cost_usd: float | None  # None: unknown
    per_turn: tuple[TurnCost, ...] = ()
    unrecorded_turns: int = 0  # turns from before per-turn records: in the totals only
    cost_estimated: bool = False  # not every call was priced when it ran: today's rate


class Recorded(Protocol):
    """The recorded counts `cost_report` reads (a `SessionMeta`: a session file's, or the
    counts of a server thread's history)."""

    turns: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    turn_costs: list[dict[str, Any]]


def cost_report(meta: Recorded | None, running: Ledger, totals: TokenLedger,
                model: str) -> CostReport:
    """`/cost`: the ledger's session `totals`, and one row per recorded turn (`running`'s
    turn last, with its calls so far). Turns recorded before per-turn records existed are
    only in the totals: `unrecorded_turns` says how many."""
    records = list(meta.turn_costs) if meta is not None else []
    turns = meta.turns if meta is not None else 0
    rows = [TurnCost(turn=r["turn"], model=r["model"], input=r["input"], cached=r["cached"],
                     output=r["output"], cost=r["cost"],
                     retried=r["turn"] > turns or any(
                         later["turn"] == r["turn"] for later in records[n + 1:]))
            for n, r in enumerate(records)]
    if running.live and running.calls:
        rows.append(TurnCost(
            turn=turns + 1, model=model, input=sum(c.input for c in running.calls),
            cached=running.turn_cached(), output=sum(c.output for c in running.calls),
            cost=running.turn_cost(), running=True))
    recorded = {r["turn"] for r in records if r["turn"] <= turns}
    return CostReport(model=model, turns=turns, input=totals.session_in,
                      cached=totals.session_cached, output=totals.session_out,
                      cost_usd=totals.cost_usd, per_turn=tuple(rows),
                      unrecorded_turns=max(0, turns - len(recorded)),
                      cost_estimated=totals.cost_usd is not None and meta is not None
                      and meta.cost_usd is None
                      and bool(meta.input_tokens or meta.output_tokens))
