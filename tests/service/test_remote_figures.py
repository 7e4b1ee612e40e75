"""The remote door's token figures are the local ledger's arithmetic: a thread's history is
counted as a session file is (`agent.accounting.settle`), a running turn's calls go into a
`Ledger`, `/cost` is `agent.ledger.cost_report`; no door computes figures of its own."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

import birdie_tui
from birdie_tui.agent.accounting import settle
from birdie_tui.agent.ledger import Ledger, cost_report
from birdie_tui.service.remote.thread import RemoteThread
from birdie_tui.store.session_meta import SessionMeta

PRICE = (2.0, 8.0, 0.5)  # USD per million: input, output, cached input


def ai(text: str, used_in: int, used_out: int, cached: int = 0) -> AIMessage:
    return AIMessage(content=text, usage_metadata={
        "input_tokens": used_in, "output_tokens": used_out,
        "total_tokens": used_in + used_out, "input_token_details": {"cache_read": cached}})


HISTORY = [
    HumanMessage(content="first", id="h1"),
    AIMessage(content="", id="a1", tool_calls=[{"id": "c1", "name": "echo", "args": {}}],
              usage_metadata={"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
                              "input_token_details": {"cache_read": 40}}),
    ToolMessage(content="ok", tool_call_id="c1", id="t1"),
    ai("done", 150, 20),
    HumanMessage(content="second", id="h2"),
    ai("again", 300, 30, cached=200),
]


def thread_of(messages) -> RemoteThread:
    view = RemoteThread("t-1")
    view.take_values({"messages": [m.model_dump() | {"type": m.type} for m in messages]},
                     price=PRICE, model="offline · echo")
    return view


def local_figures(messages):
    """What the local door shows for the same history: its session file's counts (as the
    engine settles them) and its ledger."""
    meta = SessionMeta(id="s-1", user_id="u", counted={"through": None, "turns": 0})
    settle(meta, messages, price=PRICE, model="offline · echo")
    ledger = Ledger()
    ledger.show_history(messages)
    totals = ledger.snapshot(meta, context_window=1000, price=PRICE)
    return totals, cost_report(meta, ledger, totals, "offline · echo")


def test_a_threads_figures_are_the_local_ledgers():
    """Totals, turns, per-turn figures, the last turn's calls, the cost and `/cost`'s rows of
    a thread equal the local door's for the same history."""
    view = thread_of(HISTORY)
    totals = view.snapshot(context_window=1000, price=PRICE)
    local, local_cost = local_figures(HISTORY)
    assert totals == local
    assert (totals.session_in, totals.session_out, totals.turns) == (550, 60, 2)
    assert totals.per_turn == (280, 330) and [c.input for c in totals.calls] == [300]
    assert view.cost(totals, "offline · echo") == local_cost
    assert [(r.turn, r.input, r.cached, r.output) for r in local_cost.per_turn] == \
        [(1, 250, 40, 30), (2, 300, 200, 30)]


def test_a_running_turns_calls_count_until_the_thread_is_read_back():
    """During a turn the ledger adds its calls to the history's counts (and `/cost` lists it
    as running); reading the thread back after it ends counts them once."""
    view = thread_of(HISTORY[:4])
    view.ledger.begin_turn()
    view.ledger.add_call(300, 30, 200, PRICE)
    running = view.snapshot(context_window=1000, price=PRICE)
    assert (running.session_in, running.turns) == (550, 1)
    report = view.cost(running, "offline · echo")
    assert report.per_turn[-1].running and report.per_turn[-1].input == 300
    view.take_values({"messages": [m.model_dump() | {"type": m.type} for m in HISTORY]},
                     price=PRICE, model="offline · echo")
    after = view.snapshot(context_window=1000, price=PRICE)
    assert (after.session_in, after.turns) == (550, 2) and not view.ledger.live


def test_no_door_computes_token_figures_of_its_own():
    """The service builds no TokenLedger and prices no call itself: `agent.ledger` does."""
    service = Path(birdie_tui.__file__).parent / "service"
    offenders = [path.name for path in service.rglob("*.py")
                 if "TokenLedger(" in path.read_text(encoding="utf-8")
                 or "call_cost(" in path.read_text(encoding="utf-8")]
    assert offenders == []
