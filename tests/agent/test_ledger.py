"""The token ledger: per call, per turn, per session, with cost from the catalog (cached
input at the cached rate), and the session file keeping what it recorded."""

from __future__ import annotations

import json

import pytest

from birdie_tui.agent.ledger import CallUsage, Ledger, call_cost
from birdie_tui.store import BirdiePaths, SessionStore

PRICE = (2.5, 10.0, 1.25)  # USD per million: input, output, cached input


def test_cached_input_is_priced_at_the_cached_rate():
    """1M input of which 0.8M cached costs 0.2×2.5 + 0.8×1.25; output at its own rate."""
    assert call_cost(PRICE, 1_000_000, 0, 800_000) == pytest.approx(0.5 + 1.0)
    assert call_cost(PRICE, 0, 1_000_000) == pytest.approx(10.0)
    assert call_cost(None, 10, 10) is None
    assert call_cost(PRICE, 100, 0, cached=500) == call_cost(PRICE, 100, 0, cached=100)


def _store(tmp_path) -> tuple[SessionStore, object]:
    store = SessionStore(BirdiePaths(tmp_path), "tester")
    return store, store.create()


def test_live_calls_count_until_the_turn_is_recorded(tmp_path):
    """While a turn runs, its calls join the session totals; after, the file holds them."""
    from birdie_tui.agent.accounting import record_turn

    store, meta = _store(tmp_path)
    ledger = Ledger()
    ledger.begin_turn()
    ledger.add_call(1_000, 100, 600, PRICE)
    ledger.add_call(1_200, 50, 0, PRICE)
    live = ledger.snapshot(meta, context_window=128_000, price=PRICE)
    assert (live.session_in, live.session_out, live.session_cached) == (2_200, 150, 600)
    assert live.context_tokens == 1_200 and live.turns == 0
    record_turn(store, meta, "hi", 2_200, 150, cached=ledger.turn_cached(),
                cost=ledger.turn_cost())
    ledger.end_turn()
    done = ledger.snapshot(meta, context_window=128_000, price=PRICE)
    assert (done.session_in, done.session_out, done.turns) == (2_200, 150, 1)
    assert done.cost_usd == pytest.approx(live.cost_usd)  # nothing counted twice
    assert done.calls == live.calls and done.per_turn == (2_350,)
    saved = json.loads((tmp_path / "sessions" / "tester" / f"{meta.id}.json").read_text())
    assert saved["cached_input_tokens"] == 600
    assert saved["cost_usd"] == pytest.approx(call_cost(PRICE, 1_000, 100, 600)
                                              + call_cost(PRICE, 1_200, 50))


def test_an_unpriced_call_makes_the_recorded_cost_unknown(tmp_path):
    """A call of a model without a price: the session's recorded cost is unknown, and the
    snapshot estimates the whole session at today's rate instead."""
    from birdie_tui.agent.accounting import record_turn

    store, meta = _store(tmp_path)
    ledger = Ledger()
    ledger.begin_turn()
    ledger.add_call(1_000, 100, 0, None)
    record_turn(store, meta, "hi", 1_000, 100, cost=ledger.turn_cost())
    ledger.end_turn()
    assert meta.cost_usd is None
    assert ledger.snapshot(meta, context_window=None, price=None).cost_usd is None
    estimate = ledger.snapshot(meta, context_window=None, price=PRICE).cost_usd
    assert estimate == pytest.approx(call_cost(PRICE, 1_000, 100))


def test_a_session_from_before_the_ledger_is_estimated(tmp_path):
    """Old session files have tokens but no cost: shown at today's rate, never as $0."""
    store, meta = _store(tmp_path)
    meta.input_tokens, meta.output_tokens = 10_000, 1_000
    store.save(meta)
    old = store.load(meta.id)
    assert old.cost_usd is None and old.cached_input_tokens == 0
    snap = Ledger().snapshot(old, context_window=None, price=PRICE)
    assert snap.cost_usd == pytest.approx(call_cost(PRICE, 10_000, 1_000))


def test_the_last_turn_is_read_back_from_the_history():
    """After a resume, the panels show the last turn's calls (cache reads included)."""
    from langchain_core.messages import AIMessage, HumanMessage

    history = [HumanMessage("one"), AIMessage("a", usage_metadata={
        "input_tokens": 5, "output_tokens": 1, "total_tokens": 6}),
        HumanMessage("two"), AIMessage("b", usage_metadata={
            "input_tokens": 9, "output_tokens": 2, "total_tokens": 11,
            "input_token_details": {"cache_read": 4}})]
    ledger = Ledger()
    ledger.show_history(history)
    assert ledger.calls == [CallUsage(9, 2, 4)] and not ledger.live
