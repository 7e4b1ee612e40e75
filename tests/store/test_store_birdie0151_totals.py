"""Session files written by Birdie 0.15: its keys kept, its totals shown, continued and written back.

The real Birdie 0.15.1 writing and re-reading such a file: tests/compat/test_birdie_0151.py.
"""

from __future__ import annotations

import json

from birdie_tui.store import BirdiePaths, SessionMeta, SessionStore

SID = "2026-05-02_3"
# The keys and order of Birdie 0.15.1's `SessionManager.save`.
BIRDIE_0151_SESSION = {
    "id": SID, "user_id": "alice", "created_at": "2026-05-02T08:00:00+00:00",
    "updated_at": "2026-05-02T08:05:00+00:00", "turns": 4,
    "enabled_skills": ["ToDo"], "disabled_skills": [], "enabled_agents": ["summarizer"],
    "disabled_agents": [], "approved_skills": ["Shell"], "approved_acp_tools": ["Always allow Bash"],
    "total_input_tokens": 5000, "total_output_tokens": 300, "total_cost_usd": 0.5,
}


def write(paths: BirdiePaths, data: dict) -> SessionStore:
    paths.ensure_user_dir("alice")
    paths.session_file("alice", SID).write_text(json.dumps(data, indent=2))
    return SessionStore(paths, "alice")


def saved(paths: BirdiePaths) -> dict:
    return json.loads(paths.session_file("alice", SID).read_text())


def test_birdie_totals_are_the_sessions_totals(paths: BirdiePaths) -> None:
    """Birdie's total_* keys give the totals, in the full metadata and in the list summary."""
    store = write(paths, BIRDIE_0151_SESSION)
    meta = store.load(SID)
    assert (meta.input_tokens, meta.output_tokens, meta.cost_usd) == (5000, 300, 0.5)
    assert meta.extra["approved_skills"] == ["Shell"]
    [row] = store.summaries()
    assert (row.id, row.turns, row.input_tokens, row.output_tokens) == (SID, 4, 5000, 300)


def test_a_turn_adds_to_birdies_totals_and_writes_them_back(paths: BirdiePaths) -> None:
    """A new turn counts on from Birdie's totals; every Birdie key stays, totals updated."""
    store = write(paths, BIRDIE_0151_SESSION)
    store.record_turn(store.load(SID), 100, 20, cost=0.01)
    data = saved(paths)
    assert list(data)[:len(BIRDIE_0151_SESSION)] == list(BIRDIE_0151_SESSION)  # same keys, same order
    for key in ("enabled_skills", "enabled_agents", "approved_skills", "approved_acp_tools"):
        assert data[key] == BIRDIE_0151_SESSION[key], key
    assert data["turns"] == 5
    assert (data["total_input_tokens"], data["total_output_tokens"]) == (5100, 320)
    assert (data["input_tokens"], data["output_tokens"]) == (5100, 320)
    assert data["total_cost_usd"] == data["cost_usd"] == 0.51
    # Read again (by us): still the same totals, not counted twice.
    meta = store.load(SID)
    assert (meta.input_tokens, meta.output_tokens, meta.cost_usd) == (5100, 320, 0.51)


def test_a_zero_birdie_cost_is_unknown_and_kept(paths: BirdiePaths) -> None:
    """Birdie's total_cost_usd 0 (no agent reported one) is an unknown cost, written back as 0."""
    store = write(paths, {**BIRDIE_0151_SESSION, "total_cost_usd": 0.0})
    meta = store.load(SID)
    assert meta.cost_usd is None  # estimated at today's rate, like a pre-pricing session
    store.record_turn(meta, 10, 2, cost=0.001)
    data = saved(paths)
    assert data["total_cost_usd"] == 0.0 and "cost_usd" not in data
    assert data["total_input_tokens"] == 5010


def test_totals_are_the_larger_of_ours_and_birdies(paths: BirdiePaths) -> None:
    """When both are present, the larger count wins (totals only grow; one side was behind)."""
    store = write(paths, {**BIRDIE_0151_SESSION, "input_tokens": 7000, "output_tokens": 10,
                          "cost_usd": 0.25})
    meta = store.load(SID)
    assert (meta.input_tokens, meta.output_tokens, meta.cost_usd) == (7000, 300, 0.25)


def test_our_own_sessions_do_not_gain_birdies_keys() -> None:
    """A session without Birdie 0.15's totals is written without them."""
    meta = SessionMeta(id=SID, user_id="alice", input_tokens=5, output_tokens=1, cost_usd=0.1)
    assert not any(key.startswith("total_") for key in meta.to_dict())
