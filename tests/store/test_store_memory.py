import json
import re
from datetime import datetime

import pytest

from birdie_tui.store import BirdiePaths, MemoryEntry, MemoryStore, SessionStore

# Verbatim from Birdie 0.1.5's README ("Long-term memory - user-scoped memory.json").
BIRDIE_015_MEMORY = {
    "user_id": "alice",
    "entries": [
        {"id": "a3f1c2b0", "timestamp": "2026-04-29T09:12:00+00:00", "content": "prefers concise answers"},
        {"id": "b7e4d9f1", "timestamp": "2026-04-29T10:00:00+00:00", "content": "working on project Birdie"},
    ],
}


def test_add_writes_birdie_format(paths: BirdiePaths) -> None:
    """Adding a note strips it and writes Birdie's memory.json format with id and timestamp."""
    mem = MemoryStore(paths, "alice")
    assert mem.entries() == []
    entry = mem.add("  prefers tea  ")
    assert entry.content == "prefers tea"
    assert re.fullmatch(r"[0-9a-f]{8}", entry.id)
    assert datetime.fromisoformat(entry.timestamp).tzinfo is not None
    data = json.loads(paths.memory_file("alice").read_text())
    assert data == {"user_id": "alice", "entries": [{"id": entry.id, "timestamp": entry.timestamp, "content": "prefers tea"}]}
    assert MemoryStore(paths, "alice").entries() == [entry]


def test_empty_note_rejected(paths: BirdiePaths) -> None:
    """A blank note raises ValueError and writes no memory file."""
    mem = MemoryStore(paths, "alice")
    for text in ("", "   ", "\n\t"):
        with pytest.raises(ValueError):
            mem.add(text)
    assert not paths.memory_file("alice").exists()


def test_reads_birdie_file_and_delete_by_id(paths: BirdiePaths) -> None:
    """A Birdie 0.1.5 memory file is read, and an entry is deleted by its id."""
    paths.ensure_user_dir("alice")
    paths.memory_file("alice").write_text(json.dumps(BIRDIE_015_MEMORY, indent=2))
    mem = MemoryStore(paths, "alice")
    assert [e.content for e in mem.entries()] == ["prefers concise answers", "working on project Birdie"]
    removed = mem.delete("a3f1c2b0")
    assert removed == MemoryEntry("a3f1c2b0", "2026-04-29T09:12:00+00:00", "prefers concise answers")
    data = json.loads(paths.memory_file("alice").read_text())
    assert data == {"user_id": "alice", "entries": [BIRDIE_015_MEMORY["entries"][1]]}
    assert mem.delete("a3f1c2b0") is None


@pytest.mark.parametrize("key", [2, "2", " 2 "])
def test_delete_by_one_based_index(paths: BirdiePaths, key) -> None:
    """A number (int or padded string) deletes the entry at that one-based position."""
    mem = MemoryStore(paths, "alice")
    first, second, third = mem.add("one"), mem.add("two"), mem.add("three")
    assert mem.delete(key) == second
    assert mem.entries() == [first, third]


@pytest.mark.parametrize("key", [0, -1, 4, "0", "9", "nope", "", True])
def test_delete_out_of_range_or_unknown(paths: BirdiePaths, key) -> None:
    """An out-of-range index or unknown key deletes nothing and returns None."""
    mem = MemoryStore(paths, "alice")
    for text in ("one", "two", "three"):
        mem.add(text)
    assert mem.delete(key) is None
    assert len(mem.entries()) == 3


def test_id_wins_over_index_for_numeric_ids(paths: BirdiePaths) -> None:
    """A key matching an entry id deletes that entry before being read as an index."""
    paths.ensure_user_dir("alice")
    entries = [
        {"id": "00000002", "timestamp": "t", "content": "first"},
        {"id": "abcdef01", "timestamp": "t", "content": "second"},
    ]
    paths.memory_file("alice").write_text(json.dumps({"user_id": "alice", "entries": entries}))
    mem = MemoryStore(paths, "alice")
    assert mem.delete("00000002").content == "first"
    assert mem.delete("1").content == "second"


def test_unknown_entries_and_keys_survive_rewrite(paths: BirdiePaths) -> None:
    """Entries without content and unknown top-level keys are kept when the file is rewritten."""
    paths.ensure_user_dir("alice")
    odd = {"id": "x", "kind": "image", "ref": "cat.png"}  # no content: not shown, not dropped
    data = {"user_id": "alice", "entries": [odd, BIRDIE_015_MEMORY["entries"][0]], "version": 2}
    paths.memory_file("alice").write_text(json.dumps(data))
    mem = MemoryStore(paths, "alice")
    assert [e.id for e in mem.entries()] == ["a3f1c2b0"]
    mem.add("new")
    assert mem.delete(1).id == "a3f1c2b0"
    saved = json.loads(paths.memory_file("alice").read_text())
    assert saved["version"] == 2 and saved["entries"][0] == odd
    assert [e["content"] for e in saved["entries"][1:]] == ["new"]


def test_corrupt_memory_moved_aside_and_app_continues(paths: BirdiePaths) -> None:
    """Corrupt memory.json is moved aside with a warning; memory and sessions keep working."""
    sessions = SessionStore(paths, "alice")
    meta = sessions.create()
    paths.memory_file("alice").write_text('{"user_id": "alice", "entries": [')
    mem = MemoryStore(paths, "alice")
    assert mem.entries() == []
    [warning] = mem.warnings
    assert "memory file memory.json was corrupt" in warning and "memory.json.corrupt-" in warning
    [aside] = list(paths.user_dir("alice").glob("memory.json.corrupt-*"))
    assert aside.read_text().startswith('{"user_id"')
    entry = mem.add("still works")
    assert mem.entries() == [entry]
    assert sessions.load(meta.id) == meta and sessions.warnings == []


def test_entries_not_a_list_is_treated_as_empty(paths: BirdiePaths) -> None:
    """A non-list `entries` value reads as no entries and adding still works."""
    paths.ensure_user_dir("alice")
    paths.memory_file("alice").write_text('{"user_id": "alice", "entries": "oops"}')
    mem = MemoryStore(paths, "alice")
    assert mem.entries() == []
    mem.add("x")
    assert len(mem.entries()) == 1
