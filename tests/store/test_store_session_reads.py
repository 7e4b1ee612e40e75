"""How often the session store reads a session file back: a turn updates its session after
each checkpoint, and parsing the file it has just written was most of the engine's cost per
turn. These count reads, never the clock."""

import os
import time
from datetime import date

import pytest

from birdie_tui.store import BirdiePaths, SessionMeta, SessionStore, write_json_atomic
from birdie_tui.store import sessions as sessions_module

DAY = date(2026, 4, 29)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The session files the store reads from disk, in order."""
    seen: list[str] = []
    real = sessions_module.read_json

    def counting(path, **kwargs):
        seen.append(os.path.basename(path))
        return real(path, **kwargs)

    monkeypatch.setattr(sessions_module, "read_json", counting)
    return seen


def _turn(meta) -> bool:
    meta.turns += 1
    meta.token_log.append({"input": 10, "output": 2})
    return True


def test_updates_and_loads_do_not_reread_what_the_store_wrote(
        paths: BirdiePaths, reads: list[str]) -> None:
    """After a write, `update` and `load` take the file's content from what was written (one
    stat) while the file is still that one, and give the same values a read would."""
    store = SessionStore(paths, "alice")
    sid = store.create(DAY).id
    store.update(sid, _turn)  # the first update reads the file create() wrote
    reads.clear()
    for _ in range(3):
        store.update(sid, _turn)
    loaded = store.load(sid)
    assert reads == []
    fresh = SessionStore(paths, "alice").load(sid)  # another process reads the file
    assert loaded is not None and fresh is not None
    assert loaded.to_dict() == fresh.to_dict() and loaded.turns == 4


def test_a_file_replaced_by_another_writer_is_read_again(
        paths: BirdiePaths, reads: list[str]) -> None:
    """Another process's write (a new file in its place) is seen at once: its content, not the
    one this store wrote, even with the same size and within the same clock tick."""
    store = SessionStore(paths, "alice")
    sid = store.create(DAY).id
    store.update(sid, _turn)
    path = paths.session_file("alice", sid)
    other = SessionStore(paths, "alice")
    other.update(sid, lambda meta: setattr(meta, "title", "x") or False)
    reads.clear()
    seen = store.load(sid)
    assert reads == [path.name] and seen is not None and seen.title == "x"
    # A hand edit that keeps the size is a new file too (written atomically, as tools do).
    data = store._read_current(path)
    assert data is not None
    write_json_atomic(path, {**data, "title": "y"})
    os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns))
    again = store.load(sid)
    assert again is not None and again.title == "y"


def test_a_copy_shares_nothing_it_could_change(paths: BirdiePaths) -> None:
    """`SessionMeta.copy` (what the store hands out instead of parsing its own write again)
    equals the parsed file and shares no list or dict with it: a change to one never shows in
    the next `update`."""
    store = SessionStore(paths, "alice")
    sid = store.create(DAY).id
    store.update(sid, lambda meta: setattr(meta, "extra", {"k": [1]}) or _turn(meta))
    first = store.load(sid)
    assert first is not None
    parsed = SessionMeta.from_dict(first._raw or {}, id=sid, user_id="alice")
    assert first == parsed
    second = store.load(sid)
    for name, value in vars(first).items():
        if isinstance(value, (list, dict)) and name != "_raw":
            assert value is not getattr(second, name), name
    first.token_log[0]["input"] = 999
    first.extra["k"].append(2)
    third = store.load(sid)
    assert third is not None and third.token_log[0]["input"] == 10 and third.extra == {"k": [1]}
