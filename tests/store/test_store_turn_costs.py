"""Per-turn cost records in the session JSON (`turn_costs`, read by `/cost`)."""

from __future__ import annotations

import json

from birdie_tui.store import BirdiePaths, SessionStore
from birdie_tui.store.session_meta import TOKEN_LOG_LIMIT, SessionMeta


def test_record_turn_writes_a_record_per_turn(paths: BirdiePaths) -> None:
    """Each recorded turn adds {turn, model, input, cached, output, cost} to the file; the
    carried tokens of a retried turn stay out of the new record (they are in the old one)."""
    store = SessionStore(paths, "alice")
    meta = store.create()
    store.record_turn(meta, 100, 20, cached=40, cost=0.5, model="openai · gpt-4o")
    store.record_turn(meta, 10, 2, carried=(7, 3), cost=None, model="offline model")
    saved = json.loads(paths.session_file("alice", meta.id).read_text())
    assert saved["turn_costs"] == [
        {"turn": 1, "model": "openai · gpt-4o", "input": 100, "cached": 40, "output": 20,
         "cost": 0.5},
        {"turn": 2, "model": "offline model", "input": 10, "cached": 0, "output": 2,
         "cost": None}]
    assert store.load(meta.id).turn_costs == saved["turn_costs"]


def test_turn_costs_tolerate_mistyped_values_and_are_capped() -> None:
    """Junk entries are skipped, mistyped fields get defaults (an unknown cost stays
    unknown); a session without the key has none; the list keeps the last 200."""
    meta = SessionMeta.from_dict({"id": "2026-01-01_1", "turn_costs": [
        {"turn": "2", "model": 5, "input": None, "cost": -1}, "junk", 3]})
    assert meta.turn_costs == [{"turn": 2, "model": "", "input": 0, "cached": 0, "output": 0,
                                "cost": None}]
    assert SessionMeta.from_dict({"id": "2026-01-01_1"}).turn_costs == []
    assert "turn_costs" not in SessionMeta(id="2026-01-01_1", user_id="u").to_dict()
    many = [{"turn": n, "input": 1} for n in range(1, TOKEN_LOG_LIMIT + 11)]
    capped = SessionMeta.from_dict({"id": "2026-01-01_1", "turn_costs": many}).turn_costs
    assert len(capped) == TOKEN_LOG_LIMIT and capped[0]["turn"] == 11
