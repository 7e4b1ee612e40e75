"""Session ids are never reused, new sessions can stay provisional, empty ones are not listed."""

from __future__ import annotations

import sqlite3
from datetime import date

from birdie_tui.store import BirdiePaths, SessionMeta, SessionStore

DAY = date(2026, 4, 29)


def _files(paths: BirdiePaths) -> list[str]:
    folder = paths.user_dir("alice")
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _touch(store: SessionStore, meta: SessionMeta) -> SessionMeta:
    return store.record_turn(meta, 5, 2)  # a conversation, so it is listed


def test_deleting_the_newest_session_never_hands_its_id_out_again(paths: BirdiePaths) -> None:
    """Deleting the newest session leaves a tombstone so its id is never allocated again."""
    store = SessionStore(paths, "alice")
    metas = [_touch(store, store.create(DAY)) for _ in range(3)]
    assert store.delete(metas[2].id) is True
    assert store.create(DAY).id == "2026-04-29_4"
    # The tombstone is an empty file that Birdie 0.1.5 (which globs `<day>_*.json`) ignores.
    tomb = paths.user_dir("alice") / "2026-04-29_3.deleted"
    assert tomb.is_file() and tomb.stat().st_size == 0
    assert tomb not in paths.user_dir("alice").glob(f"{DAY.isoformat()}_*.json")
    assert not store.exists("2026-04-29_3") and store.load("2026-04-29_3") is None
    assert "2026-04-29_3" not in [m.id for m in store.list(include_empty=True)]
    # A fresh store (another process) agrees.
    assert SessionStore(paths, "alice").next_id(DAY) == "2026-04-29_5"


def test_deleting_every_session_still_never_reuses_ids(paths: BirdiePaths) -> None:
    """Deleting every session of a day still allocates the next id after them."""
    store = SessionStore(paths, "alice")
    for meta in [store.create(DAY), store.create(DAY)]:
        store.delete(meta.id)
    assert store.list(include_empty=True) == []
    assert store.create(DAY).id == "2026-04-29_3"


def test_provisional_session_touches_nothing_until_created(paths: BirdiePaths) -> None:
    """A provisional session writes nothing until created, then keeps its id, title and grants."""
    store = SessionStore(paths, "alice")
    _touch(store, store.create(DAY))
    before = _files(paths)
    meta = store.provisional(DAY)
    assert meta.id == "2026-04-29_2" and meta.saved is False and meta.user_id == "alice"
    assert _files(paths) == before
    meta.title, meta.enabled_skills = "kept", ["Shell"]
    assert store.create(DAY, meta=meta) is meta
    assert meta.saved is True and meta.id == "2026-04-29_2"
    loaded = store.load(meta.id)
    assert loaded.title == "kept" and loaded.enabled_skills == ["Shell"]
    assert "saved" not in paths.session_file("alice", meta.id).read_text()


def test_provisional_id_taken_meanwhile_gets_the_next_free_one(paths: BirdiePaths) -> None:
    """A provisional id claimed by another process meanwhile moves to the next free id."""
    mine = SessionStore(paths, "alice").provisional(DAY)
    theirs = SessionStore(paths, "alice").create(DAY)  # another process won the race
    assert theirs.id == mine.id == "2026-04-29_1"
    SessionStore(paths, "alice").create(DAY, meta=mine)
    assert mine.id == "2026-04-29_2" and mine.saved


def _add_thread(paths: BirdiePaths, thread_id: str) -> None:
    paths.ensure_user_dir("alice")
    conn = sqlite3.connect(paths.checkpoints_db("alice"))
    with conn:
        conn.execute("CREATE TABLE IF NOT EXISTS checkpoints (thread_id TEXT, checkpoint_ns TEXT,"
                     " checkpoint_id TEXT)")
        conn.execute("INSERT INTO checkpoints VALUES (?, '', '1')", (thread_id,))
    conn.close()


def test_empty_sessions_are_not_listed_unless_asked(paths: BirdiePaths) -> None:
    """Sessions without turns, title or history are left out of list() and latest() by default."""
    store = SessionStore(paths, "alice")
    talked = _touch(store, store.create(DAY))      # _1: has turns
    store.create(DAY)                               # _2: empty
    titled = store.set_title(store.create(DAY), "named")  # _3: a title is not empty
    with_history = store.create(DAY)               # _4: turns 0, but history in checkpoints.db
    _add_thread(paths, with_history.id)
    empty = store.create(DAY)                       # _5: empty, newest
    assert [m.id for m in store.list()] == [with_history.id, titled.id, talked.id]
    assert [m.id for m in store.list(include_empty=True)] == [
        empty.id, with_history.id, titled.id, "2026-04-29_2", talked.id]
    assert [m.id for m in store.list(keep=empty.id)] == [
        empty.id, with_history.id, titled.id, talked.id]
    assert store.latest().id == with_history.id
    assert store.latest(include_empty=True).id == empty.id
    assert store.load(empty.id) is not None  # still opens by id


def test_unreadable_checkpoints_db_keeps_empty_looking_sessions_listed(paths: BirdiePaths) -> None:
    """If checkpoints.db cannot be read, sessions that look empty are listed anyway."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    paths.checkpoints_db("alice").write_bytes(b"garbage, not sqlite" * 10)
    # Their history cannot be checked: better listed than hidden.
    assert [m.id for m in store.list()] == [meta.id]


def test_latest_is_none_when_every_session_is_empty(paths: BirdiePaths) -> None:
    """No latest session is named while every session is empty."""
    store = SessionStore(paths, "alice")
    assert store.latest() is None
    store.create(DAY)
    assert store.latest() is None


def test_retry_carry_round_trips_and_joins_the_next_log_entry(paths: BirdiePaths) -> None:
    """The retry carry is saved and reloaded, then folded into the next token log entry."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    meta.retry_carry = {"input": 7, "output": 3}
    store.save(meta)
    loaded = store.load(meta.id)
    assert loaded.retry_carry == {"input": 7, "output": 3}
    store.record_turn(loaded, 10, 1, carried=(7, 3))
    assert loaded.token_log == [{"input": 17, "output": 4}]
    assert (loaded.input_tokens, loaded.output_tokens) == (10, 1)  # carried was counted before
