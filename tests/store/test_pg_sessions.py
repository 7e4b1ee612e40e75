"""`PgSessionStore` against a real PostgreSQL server: ids, the metadata round trip, merging
saves, updates under the row lock, summaries of the team's sessions, delete."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from datetime import date
from pathlib import Path

import psycopg
import pytest

from birdie_tui.store.pg.sessions import PgSessionStore
from birdie_tui.store.session_meta import SessionMeta

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
DAY = date(2026, 1, 1)


@pytest.fixture
def store(pg_url):
    s = PgSessionStore(pg_url, "alice")
    yield s
    s.close()


def test_ids_are_per_day_and_next_id_says_the_next_one(store):
    """Ids are per day and next id says the next one."""
    assert store.next_id(DAY) == "2026-01-01_1"
    assert [store.create(DAY).id for _ in range(3)] == [f"2026-01-01_{n}" for n in (1, 2, 3)]
    assert store.next_id(DAY) == "2026-01-01_4"
    assert store.create(date(2026, 1, 2)).id == "2026-01-02_1"
    provisional = store.provisional(DAY)
    assert (provisional.id, provisional.saved) == ("2026-01-01_4", False)
    assert not store.exists(provisional.id)


def test_create_writes_a_provisional_session_as_it_is(store):
    """Create writes a provisional session as it is."""
    meta = store.provisional(DAY)
    meta.enabled_skills, meta.title = ["shell"], "draft"
    made = store.create(DAY, meta=meta)
    assert made is meta and meta.saved and meta.id == "2026-01-01_1"
    loaded = store.load(meta.id)
    assert (loaded.enabled_skills, loaded.title, loaded.user_id) == (["shell"], "draft", "alice")


def test_every_key_survives_the_round_trip(store):
    """Birdie's keys, grants, the token ledger and keys this version does not know."""
    meta = store.create(DAY)
    meta.enabled_skills, meta.disabled_skills = ["weather"], ["shell"]
    meta.extra.update({"approved_skills": ["filesystem"], "approval_rules": ["bash(ls *)"],
                       "total_input_tokens": 0, "total_output_tokens": 0,
                       "total_cost_usd": 0.0, "from_the_future": {"nested": [1, "two", None]}})
    store.record_turn(meta, 120, 30, cached=20, cost=0.0125, model="offline")
    store.set_title(meta, "  the   title ")
    again = store.load(meta.id)
    assert again.to_dict() == meta.to_dict()
    assert again.extra["from_the_future"] == {"nested": [1, "two", None]}
    assert again.token_log == [{"input": 120, "output": 30}]
    assert again.turn_costs[0]["model"] == "offline" and again.title == "the title"
    assert again.to_dict()["total_input_tokens"] == 120  # Birdie 0.15's totals kept in step


def test_saves_from_two_stores_merge_key_by_key(pg_url, store):
    """Saves from two stores merge key by key."""
    meta = store.create(DAY)
    bob = PgSessionStore(pg_url, "bob")
    theirs = bob.load(meta.id)
    meta.enabled_skills = ["weather"]  # alice toggles a skill
    store.save(meta)
    bob.record_turn(theirs, 10, 5)  # bob, holding the older copy, counts a turn
    final = store.load(meta.id)
    assert final.enabled_skills == ["weather"] and final.turns == 1
    assert (final.input_tokens, final.output_tokens) == (10, 5)
    bob.close()


def test_a_save_never_brings_a_deleted_session_back(store):
    """A save never brings a deleted session back."""
    meta = store.create(DAY)
    assert store.delete(meta.id)
    meta.title = "late write"
    store.save(meta)
    assert not store.exists(meta.id) and store.load(meta.id) is None


def test_deleted_ids_are_never_handed_out_again(pg_url, store):
    """Deleted ids are never handed out again."""
    first, second = store.create(DAY), store.create(DAY)
    assert store.delete(second.id) and not store.delete(second.id)
    assert not store.exists(second.id)
    assert store.create(DAY).id == "2026-01-01_3"
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT deleted_by FROM birdie_deleted_sessions WHERE id = %s",
                           (second.id,)).fetchone()
    assert row == (f"alice@{socket.gethostname()}",)
    assert store.exists(first.id)


def _bump(meta: SessionMeta) -> bool:
    meta.extra["hits"] = meta.extra.get("hits", 0) + 1
    return False


def test_updates_from_threads_each_land(pg_url, store):
    """Updates from threads each land."""
    sid = store.create(DAY).id
    stores = [PgSessionStore(pg_url, f"u{i}") for i in range(4)]

    def work(s: PgSessionStore) -> None:
        for _ in range(25):
            s.update(sid, _bump)

    threads = [threading.Thread(target=work, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.load(sid).extra["hits"] == 100
    for s in stores:
        s.close()


def test_update_returns_none_without_a_session_and_skips_writes_for_no_change(store):
    """Update returns none without a session and skips writes for no change."""
    assert store.update("2026-01-01_9", _bump) is None
    meta = store.create(DAY)
    before = store.summaries(include_empty=True)[0]
    assert store.update(meta.id, lambda m: None).id == meta.id
    assert store.summaries(include_empty=True)[0] == before


UPDATE = r"""
import sys
from birdie_tui.store.pg.sessions import PgSessionStore
url, sid, user = sys.argv[1:4]
store = PgSessionStore(url, user)
def bump(meta):
    meta.extra["hits"] = meta.extra.get("hits", 0) + 1
    meta.turns += 1
    return True
for _ in range(25):
    store.update(sid, bump)
"""


@pytest.mark.slow
def test_updates_from_processes_each_land(pg_url, store):
    """Updates from processes each land."""
    sid = store.create(DAY).id
    procs = [subprocess.Popen([sys.executable, "-c", UPDATE, pg_url, sid, f"p{i}"], cwd=REPO,
                              stderr=subprocess.PIPE, text=True) for i in range(4)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    meta = store.load(sid)
    assert meta.extra["hits"] == 100 and meta.turns == 100
    assert store.summaries()[0].turns == 100  # the list column follows the JSON


CREATE = r"""
import sys, time, pathlib
from datetime import date
from birdie_tui.store.pg.sessions import PgSessionStore
url, go, user = sys.argv[1:4]
store = PgSessionStore(url, user)
while not pathlib.Path(go).exists():
    time.sleep(0.001)
for _ in range(25):
    print(store.create(date(2026, 1, 1)).id, flush=True)
"""


@pytest.mark.slow
def test_ids_are_allocated_atomically_across_processes(pg_url, tmp_path, store):
    """Ids are allocated atomically across processes."""
    store.create(DAY)  # schema in place: the processes race on ids, not on migrations
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CREATE, pg_url, str(go), f"user{i}"],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(8)]
    go.touch()
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [err for _, err in outs]
    ids = [line for out, _ in outs for line in out.split()]
    assert len(ids) == 200 and len(set(ids)) == 200
    assert set(ids) == {f"2026-01-01_{n}" for n in range(2, 202)}
    assert len(store.summaries(include_empty=True)) == 201


def test_summaries_show_the_team_newest_first_with_who_wrote_last(pg_url, store):
    """Summaries show the team newest first with who wrote last."""
    a1 = store.create(DAY)
    bob = PgSessionStore(pg_url, "bob")
    b1 = bob.create(DAY)
    for _ in range(8):
        store.create(DAY)
    a10 = store.create(DAY)  # 2026-01-01_10 sorts after _9, numerically
    b2 = bob.create(date(2026, 1, 2))
    for meta, s in ((a1, store), (b1, bob), (a10, store), (b2, bob)):
        s.record_turn(meta, 7, 3)
    bob.set_title(store.load(a1.id), "bob renamed it")  # bob writes alice's session
    rows = store.summaries()
    assert [r.id for r in rows] == [b2.id, a10.id, b1.id, a1.id]  # empty ones hidden
    by_id = {r.id: r for r in rows}
    host = socket.gethostname()
    assert (by_id[a1.id].user_id, by_id[a1.id].last_user, by_id[a1.id].last_host) == \
        ("alice", "bob", host)
    assert (by_id[a10.id].last_user, by_id[a10.id].title) == ("alice", None)
    assert (by_id[a1.id].title, by_id[a1.id].turns, by_id[a1.id].input_tokens) == \
        ("bob renamed it", 1, 7)
    assert [m.id for m in store.list()] == [r.id for r in rows]
    assert len(store.summaries(include_empty=True)) == 12
    assert a1.id in {r.id for r in store.summaries(keep="2026-01-01_5")} and \
        "2026-01-01_5" in {r.id for r in store.summaries(keep="2026-01-01_5")}
    assert store.latest().id == a10.id and bob.latest().id == b2.id  # --continue: one's own
    assert store.latest(include_empty=True).id == a10.id
    bob.close()


def test_the_write_lock_serialises_blocks(pg_url, store):
    """The write lock serialises blocks."""
    other = PgSessionStore(pg_url, "alice")
    order: list[str] = []
    with store.write_lock():
        t = threading.Thread(target=lambda: (other.write_lock().__enter__(), order.append("b")))
        t.start()
        t.join(0.3)
        order.append("a")
    t.join(10)
    assert order == ["a", "b"]
    other.close()
