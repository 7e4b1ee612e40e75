"""Saving a session another process changed since it was read: only the keys changed in
memory are written (`session_merge`); `update` changes the file as it is now."""

from __future__ import annotations

import json
from datetime import date

from birdie_tui.store import BirdiePaths, SessionStore
from birdie_tui.store.session_merge import merge_session

DAY = date(2026, 1, 2)


def _file(store: SessionStore, sid: str) -> dict:
    return json.loads(store.paths.session_file(store.user, sid).read_text())


def test_a_stale_copy_saving_a_toggle_keeps_the_turn_counted_elsewhere(tmp_path):
    """Two copies of one session: one counts a turn, the stale one saves a grant; the file
    has both, and the stale copy's old counts never come back."""
    store = SessionStore(BirdiePaths(tmp_path), "alice")
    sid = store.create(DAY).id
    counting, stale = store.load(sid), store.load(sid)
    store.record_turn(counting, 100, 10)
    stale.enabled_skills.append("Shell")
    store.save(stale)
    data = _file(store, sid)
    assert (data["turns"], data["input_tokens"], data["enabled_skills"]) == (1, 100, ["Shell"])
    stale.title = "renamed"  # a second save of the same stale copy: still no old counts
    store.save(stale)
    assert (_file(store, sid)["turns"], _file(store, sid)["title"]) == (1, "renamed")


def test_keys_changed_removed_or_added_elsewhere(tmp_path):
    """A counter changed on purpose is written; a key removed in memory goes; a key another
    writer (Birdie) added meanwhile stays; Birdie's keys keep their place."""
    store = SessionStore(BirdiePaths(tmp_path), "alice")
    meta = store.create(DAY)
    meta.extra["approval_rules"] = ["run_bash: ls"]
    store.save(meta)
    other = store.load(meta.id)
    other.extra["approved_skills"] = ["Shell"]
    store.save(other)
    meta.turns = 5
    del meta.extra["approval_rules"]
    store.save(meta)
    data = _file(store, meta.id)
    assert data["turns"] == 5 and "approval_rules" not in data
    assert data["approved_skills"] == ["Shell"]
    assert list(data)[:7] == ["id", "user_id", "created_at", "updated_at", "turns",
                              "enabled_skills", "disabled_skills"]


def test_update_changes_the_file_as_it_is_now(tmp_path):
    """`update` reads the file under the lock, applies the change and writes it; a change
    that reports nothing to write leaves the file untouched."""
    store = SessionStore(BirdiePaths(tmp_path), "alice")
    meta = store.create(DAY)
    store.record_turn(store.load(meta.id), 7, 3)

    def bump(disk) -> bool:
        disk.input_tokens += 1
        return False

    assert store.update(meta.id, bump).input_tokens == 8
    path = store.paths.session_file("alice", meta.id)
    before = path.stat().st_mtime_ns, path.read_bytes()
    assert store.update(meta.id, lambda disk: None).turns == 1
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
    assert store.update("2026-01-02_99", bump) is None


def test_the_merge_rule_itself():
    """Per key: changed here -> ours; unchanged here -> theirs; removed there -> removed."""
    base = {"a": 1, "b": 1, "c": 1, "updated_at": "x"}
    mine = {"a": 2, "b": 1, "c": 1, "updated_at": "y"}
    disk = {"a": 3, "b": 3, "d": 4, "updated_at": "z"}
    assert merge_session(base, mine, disk) == {"a": 2, "b": 3, "updated_at": "y", "d": 4}
    assert merge_session(None, mine, disk) == mine
    assert merge_session(base, mine, None) == mine
