import json
import os
import time
from datetime import date, datetime

from birdie_tui.store import TOKEN_LOG_LIMIT, BirdiePaths, SessionMeta, SessionStore

DAY = date(2026, 4, 29)

# Verbatim from Birdie 0.1.5's README ("Session files - lightweight metadata").
BIRDIE_015_SESSION = {
    "id": "2026-04-29_1",
    "user_id": "alice",
    "created_at": "2026-04-29T08:00:00+00:00",
    "updated_at": "2026-04-29T11:30:00+00:00",
    "turns": 12,
    "enabled_skills": ["Shell", "Filesystem"],
    "disabled_skills": ["Weather"],
}


def test_ids_are_sequential_per_date(paths: BirdiePaths) -> None:
    """Session ids count up from 1 separately for each date."""
    store = SessionStore(paths, "alice")
    assert [store.create(DAY).id for _ in range(3)] == ["2026-04-29_1", "2026-04-29_2", "2026-04-29_3"]
    assert store.create(date(2026, 4, 30)).id == "2026-04-30_1"
    assert store.create(DAY).id == "2026-04-29_4"


def test_create_writes_initial_json(paths: BirdiePaths) -> None:
    """Creating a session writes a JSON file with ids, zero counters and an aware timestamp."""
    meta = SessionStore(paths, "alice").create(DAY)
    data = json.loads(paths.session_file("alice", meta.id).read_text())
    assert data["id"] == meta.id and data["user_id"] == "alice"
    assert data["turns"] == 0 and data["title"] is None
    assert data["input_tokens"] == 0 and data["output_tokens"] == 0 and data["token_log"] == []
    assert data["enabled_skills"] == [] and data["disabled_skills"] == []
    assert datetime.fromisoformat(data["created_at"]).tzinfo is not None


def test_create_defaults_to_today(paths: BirdiePaths) -> None:
    """Creating a session without a date uses today's date."""
    before = date.today()
    meta = SessionStore(paths, "alice").create()
    assert meta.id in {f"{before.isoformat()}_1", f"{date.today().isoformat()}_1"}


def test_numeric_ordering_newest_first(paths: BirdiePaths) -> None:
    """Sessions list newest first, with numeric (not string) ordering of the per-day counter."""
    store = SessionStore(paths, "alice")
    for _ in range(10):
        store.create(DAY)
    store.create(date(2026, 4, 28))
    store.create(date(2026, 5, 1))
    ids = [m.id for m in store.list(include_empty=True)]
    assert ids == (
        ["2026-05-01_1"] + [f"2026-04-29_{n}" for n in range(10, 0, -1)] + ["2026-04-28_1"]
    )
    assert store.latest(include_empty=True).id == "2026-05-01_1"
    # After _9 the next id is _10, not _1 again or "_91".
    assert store.create(DAY).id == "2026-04-29_11"


def test_max_plus_one_not_count_plus_one(paths: BirdiePaths) -> None:
    """The next id is the highest existing number plus one, not the file count plus one."""
    store = SessionStore(paths, "alice")
    paths.ensure_user_dir("alice")
    for sid in ("2026-04-29_2", "2026-04-29_10"):
        (paths.session_file("alice", sid)).write_text(json.dumps({**BIRDIE_015_SESSION, "id": sid}))
    assert store.create(DAY).id == "2026-04-29_11"


def test_list_skips_non_session_files(paths: BirdiePaths) -> None:
    """Listing ignores memory, checkpoint and other non-session files without warnings."""
    store = SessionStore(paths, "alice")
    store.create(DAY)
    d = paths.user_dir("alice")
    (d / "memory.json").write_text('{"user_id": "alice", "entries": []}')
    (d / "notes.json").write_text("not json at all")
    (d / "checkpoints.db").write_bytes(b"")
    (d / "2026-04-29_x.json").write_text("{}")
    assert [m.id for m in store.list()] == ["2026-04-29_1"]
    assert store.warnings == []
    assert (d / "notes.json").exists()


def test_empty_store(paths: BirdiePaths) -> None:
    """A user with no sessions lists nothing, loads nothing and deletes nothing."""
    store = SessionStore(paths, "nobody")
    assert store.list() == [] and store.latest() is None
    assert store.load("2026-04-29_1") is None and not store.exists("2026-04-29_1")
    assert store.delete("2026-04-29_1") is False


def test_birdie_015_session_loads_and_keeps_keys(paths: BirdiePaths) -> None:
    """A Birdie 0.1.5 session file loads, and saving keeps its values and unknown keys."""
    paths.ensure_user_dir("alice")
    path = paths.session_file("alice", "2026-04-29_1")
    path.write_text(json.dumps({**BIRDIE_015_SESSION, "pinned": True, "future": {"x": [1]}}, indent=2))
    store = SessionStore(paths, "alice")
    meta = store.load("2026-04-29_1")
    assert meta is not None
    assert meta.turns == 12 and meta.enabled_skills == ["Shell", "Filesystem"]
    assert meta.disabled_skills == ["Weather"] and meta.title is None
    assert meta.input_tokens == 0 and meta.token_log == []
    assert meta.extra == {"pinned": True, "future": {"x": [1]}}

    store.record_turn(meta, 100, 20)
    saved = json.loads(path.read_text())
    for key, value in BIRDIE_015_SESSION.items():
        if key not in ("updated_at", "turns"):
            assert saved[key] == value
    assert saved["turns"] == 13
    assert saved["updated_at"] != BIRDIE_015_SESSION["updated_at"]
    assert saved["pinned"] is True and saved["future"] == {"x": [1]}
    assert saved["input_tokens"] == 100 and saved["output_tokens"] == 20
    # The original CLI keeps working: the next id is allocated after the Birdie one.
    assert store.create(DAY).id == "2026-04-29_2"


def test_from_dict_tolerates_wrong_types() -> None:
    """SessionMeta.from_dict coerces or drops wrongly typed fields instead of failing."""
    meta = SessionMeta.from_dict(
        {
            "id": 5,
            "turns": "7",
            "enabled_skills": "Shell",
            "disabled_skills": ["A", 3, None],
            "title": ["no"],
            "input_tokens": -4,
            "output_tokens": 2.0,
            "token_log": [{"input": "3", "output": None}, "junk", 1],
            "created_at": None,
        },
        id="2026-04-29_1",
        user_id="alice",
    )
    assert meta.id == "2026-04-29_1" and meta.user_id == "alice"
    assert meta.turns == 7 and meta.enabled_skills == [] and meta.disabled_skills == ["A"]
    assert meta.title is None and meta.input_tokens == 0 and meta.output_tokens == 2
    assert meta.token_log == [{"input": 3, "output": 0}]
    assert datetime.fromisoformat(meta.created_at)
    assert SessionMeta.from_dict({}).turns == 0


def test_round_trip_to_dict() -> None:
    """SessionMeta survives a to_dict/from_dict round trip unchanged."""
    meta = SessionMeta(id="2026-04-29_3", user_id="bob", title="Hi", turns=2, extra={"k": 1})
    assert SessionMeta.from_dict(meta.to_dict()) == meta


def test_record_turn_and_token_log_cap(paths: BirdiePaths) -> None:
    """Recorded turns add up turns and tokens; the log keeps the last TOKEN_LOG_LIMIT entries."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    for i in range(TOKEN_LOG_LIMIT + 5):
        store.record_turn(meta, i, 1)
    again = store.load(meta.id)
    assert again.turns == TOKEN_LOG_LIMIT + 5
    assert again.input_tokens == sum(range(TOKEN_LOG_LIMIT + 5))
    assert again.output_tokens == TOKEN_LOG_LIMIT + 5
    assert len(again.token_log) == TOKEN_LOG_LIMIT
    assert again.token_log[-1] == {"input": TOKEN_LOG_LIMIT + 4, "output": 1}
    assert again.token_log[0] == {"input": 5, "output": 1}


def test_set_title(paths: BirdiePaths) -> None:
    """Setting a title collapses its whitespace, and a blank title clears it."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    store.set_title(meta, "  Plan   the\ntrip ")
    assert store.load(meta.id).title == "Plan the trip"
    store.set_title(meta, "   ")
    assert store.load(meta.id).title is None


def test_save_updates_updated_at(paths: BirdiePaths) -> None:
    """Saving a session stamps a fresh updated_at and persists the changed fields."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    meta.updated_at = "2000-01-01T00:00:00+00:00"
    meta.enabled_skills.append("Shell")
    store.save(meta)
    loaded = store.load(meta.id)
    assert loaded.updated_at > "2020" and loaded.enabled_skills == ["Shell"]


def test_corrupt_session_moved_aside_and_others_still_listed(paths: BirdiePaths) -> None:
    """A corrupt session file is moved aside with a warning, and its id is never reused."""
    store = SessionStore(paths, "alice")
    for _ in range(3):
        store.create(DAY)
    bad = paths.session_file("alice", "2026-04-29_2")
    bad.write_text("{ truncated")
    assert [m.id for m in store.list(include_empty=True)] == ["2026-04-29_3", "2026-04-29_1"]
    [warning] = store.warnings
    assert "2026-04-29_2.json" in warning and "corrupt" in warning and "moved to" in warning
    assert not bad.exists()
    assert len(list(paths.user_dir("alice").glob("2026-04-29_2.json.corrupt-*"))) == 1
    # The moved-aside id is never handed out again (its history may still be in checkpoints.db).
    assert store.create(DAY).id == "2026-04-29_4"
    assert store.load("2026-04-29_2") is None


def test_load_corrupt_returns_none_with_warning(paths: BirdiePaths) -> None:
    """Loading a session file that is not an object returns None with one warning."""
    store = SessionStore(paths, "alice")
    meta = store.create(DAY)
    paths.session_file("alice", meta.id).write_text("[]")
    assert store.load(meta.id) is None
    assert len(store.warnings) == 1


def test_freshly_claimed_empty_file_is_not_corrupt(paths: BirdiePaths) -> None:
    """A fresh empty session file is another process's claim; a stale one is corrupt."""
    # Another process has claimed the id but not written it yet.
    store = SessionStore(paths, "alice")
    paths.ensure_user_dir("alice")
    path = paths.session_file("alice", "2026-04-29_1")
    path.touch()
    assert store.list() == [] and store.warnings == []
    assert path.exists()
    # A stale empty file (its writer died) is treated as corrupt.
    old = time.time() - 3600
    os.utime(path, (old, old))
    assert store.list() == []
    assert len(store.warnings) == 1 and not path.exists()


def test_users_are_separate(paths: BirdiePaths) -> None:
    """Each user has their own sessions and id sequence."""
    a, b = SessionStore(paths, "alice"), SessionStore(paths, "bob")
    a.create(DAY)
    assert b.list() == [] and b.create(DAY).id == "2026-04-29_1"


def test_delete_removes_json(paths: BirdiePaths) -> None:
    """Deleting a session removes its file and leaves the others."""
    store = SessionStore(paths, "alice")
    m1, m2 = store.create(DAY), store.create(DAY)
    assert store.delete(m1.id) is True
    assert not store.exists(m1.id) and store.exists(m2.id)
    assert [m.id for m in store.list(include_empty=True)] == [m2.id]
