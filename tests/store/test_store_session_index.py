"""The session list's index (`sessions/<user>/.session-index`): a cache that makes listing
cheap, rebuilt at will and never trusted over the session files. Real files throughout;
files are aged with os.utime (files changed in the last seconds are never cached)."""

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from birdie_tui.store import BirdiePaths, SessionStore
from birdie_tui.store import session_index, sessions
from birdie_tui.store.session_index import INDEX_NAME

REPO = Path(__file__).resolve().parents[2]
USER = "alice"


def write(paths: BirdiePaths, sid: str, *, title: str | None = "A title", turns: int = 1,
          age: float = 3600, **extra) -> Path:
    """A Birdie-shaped session file, last modified `age` seconds ago."""
    paths.ensure_user_dir(USER)
    path = paths.session_file(USER, sid)
    data = {"id": sid, "user_id": USER, "created_at": "2026-01-01T10:00:00+00:00",
            "updated_at": "2026-01-01T11:00:00+00:00", "turns": turns, "enabled_skills": [],
            "disabled_skills": [], "title": title, "input_tokens": 10 * turns,
            "output_tokens": 3 * turns, **extra}
    path.write_text(json.dumps(data, indent=2))
    age_file(path, age)
    return path


def age_file(path: Path, age: float) -> None:
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))


def index_file(paths: BirdiePaths) -> Path:
    return paths.user_dir(USER) / INDEX_NAME


def index_entries(paths: BirdiePaths) -> dict:
    return json.loads(index_file(paths).read_bytes())["entries"]


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The session files read from disk (not served by the index), by name."""
    seen: list[str] = []
    real = sessions.read_json

    def counting(path, **kwargs):
        seen.append(Path(path).name)
        return real(path, **kwargs)

    monkeypatch.setattr(sessions, "read_json", counting)
    return seen


def summary_ids(store: SessionStore, **kwargs) -> list[str]:
    return [s.id for s in store.summaries(**kwargs)]


def test_summaries_list_what_list_lists_in_the_same_order(paths: BirdiePaths) -> None:
    """Summaries hold the same sessions as `list`, newest first by date then N numerically,
    with the same fields, empty ones and `keep` handled alike, other files ignored."""
    for n in (1, 2, 10):
        write(paths, f"2026-01-02_{n}", title=f"T{n}", turns=n)
    write(paths, "2026-01-01_3", title=None, turns=0)  # empty, no history: hidden
    write(paths, "2026-01-01_4", title=None, turns=0)  # empty, but has history: listed
    conn = sqlite3.connect(paths.checkpoints_db(USER))
    conn.execute("CREATE TABLE checkpoints (thread_id TEXT, checkpoint_id TEXT)")
    conn.execute("INSERT INTO checkpoints VALUES ('2026-01-01_4', 'c1')")
    conn.commit()
    conn.close()
    folder = paths.user_dir(USER)
    (folder / "memory.json").write_text("{}")
    (folder / "2026-01-01_5.deleted").touch()
    (folder / "notes.txt").write_text("x")
    store = SessionStore(paths, USER)
    for kwargs in ({}, {"include_empty": True}, {"keep": "2026-01-01_3"}):
        assert store.summaries(**kwargs) == [m.summary() for m in store.list(**kwargs)]
    assert summary_ids(store) == ["2026-01-02_10", "2026-01-02_2", "2026-01-02_1",
                                  "2026-01-01_4"]
    [first] = [s for s in store.summaries() if s.id == "2026-01-02_10"]
    assert (first.title, first.turns, first.input_tokens, first.output_tokens,
            first.user_id, first.updated_at) == ("T10", 10, 100, 30, USER,
                                                 "2026-01-01T11:00:00+00:00")


def test_the_index_is_reused_and_only_a_changed_file_is_read_again(
        paths: BirdiePaths, reads: list[str]) -> None:
    """A second listing, even by a new store, reads no session file; after one file changes,
    only that file is read and the list shows its new content."""
    for n in range(1, 6):
        write(paths, f"2026-01-02_{n}", title=f"T{n}")
    assert len(SessionStore(paths, USER).summaries()) == 5
    assert sorted(reads) == [f"2026-01-02_{n}.json" for n in range(1, 6)]
    assert len(index_entries(paths)) == 5

    reads.clear()
    store = SessionStore(paths, USER)
    assert summary_ids(store) == [f"2026-01-02_{n}" for n in range(5, 0, -1)]
    assert store.summaries() == SessionStore(paths, USER).summaries()
    assert reads == []

    write(paths, "2026-01-02_3", title="Renamed elsewhere", age=600)
    assert [s.title for s in store.summaries()] == ["T5", "T4", "Renamed elsewhere", "T2", "T1"]
    assert reads == ["2026-01-02_3.json"]
    assert index_entries(paths)["2026-01-02_3.json"][7] == "Renamed elsewhere"


def test_a_same_size_rewrite_with_the_old_mtime_is_still_seen(paths: BirdiePaths) -> None:
    """A rewrite in place to the same size, its mtime put back, still shows (ctime differs)."""
    path = write(paths, "2026-01-02_1", title="aaaa")
    store = SessionStore(paths, USER)
    assert [s.title for s in store.summaries()] == ["aaaa"]
    before = path.stat()
    with open(path, "r+b") as fh:  # same inode, same size
        text = fh.read().replace(b'"aaaa"', b'"bbbb"')
        fh.seek(0)
        fh.write(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert [s.title for s in store.summaries()] == ["bbbb"]


def test_files_changed_in_the_last_seconds_are_listed_but_never_cached(
        paths: BirdiePaths, reads: list[str]) -> None:
    """A file written just now is read on every listing and kept out of the index, so a
    rewrite within the same timestamp tick cannot be hidden behind a stale entry."""
    write(paths, "2026-01-02_1", age=0)
    write(paths, "2026-01-02_2")
    store = SessionStore(paths, USER)
    store.summaries()
    assert list(index_entries(paths)) == ["2026-01-02_2.json"]
    reads.clear()
    store.summaries()
    assert reads == ["2026-01-02_1.json"]


@pytest.mark.parametrize("damage", [
    b"", b"{ truncated", b"\xff\xfe", b"[]", b'{"format": "something else"}',
    b'{"format": "birdie-tui session index", "version": 99, "user": "alice", "entries": {}}',
    b'{"format": "birdie-tui session index", "version": 1, "user": "bob", "entries": {}}',
])
def test_a_damaged_or_foreign_index_is_rebuilt_from_the_files(
        paths: BirdiePaths, damage: bytes) -> None:
    """An unreadable, foreign-version or other user's index is ignored and rewritten; the
    listing is exactly the files'."""
    for n in (1, 2):
        write(paths, f"2026-01-02_{n}", title=f"T{n}")
    index_file(paths).write_bytes(damage)
    store = SessionStore(paths, USER)
    assert [s.title for s in store.summaries()] == ["T2", "T1"]
    assert store.warnings == []  # a cache: nothing to tell the user
    assert sorted(index_entries(paths)) == ["2026-01-02_1.json", "2026-01-02_2.json"]


def test_a_lying_index_is_never_trusted_over_the_files(paths: BirdiePaths) -> None:
    """Entries whose stamps do not match their file, malformed entries and entries for files
    that are gone change nothing: the list is the directory's, with the files' content."""
    path = write(paths, "2026-01-02_1", title="Real")
    write(paths, "2026-01-02_2", title="Also real")
    SessionStore(paths, USER).summaries()
    data = json.loads(index_file(paths).read_bytes())
    data["entries"]["2026-01-02_1.json"][7] = "Forged"
    data["entries"]["2026-01-02_1.json"][2] += 1  # mtime off by a nanosecond
    data["entries"]["2026-01-02_2.json"] = ["not", "an", "entry"]
    stamp = [path.stat().st_ino, 1, 2, 3, "x", "y", 5, "Ghost", 1, 1]
    data["entries"]["2026-01-02_9.json"] = stamp
    index_file(paths).write_text(json.dumps(data))
    store = SessionStore(paths, USER)
    assert [(s.id, s.title) for s in store.summaries()] == [
        ("2026-01-02_2", "Also real"), ("2026-01-02_1", "Real")]


def test_a_deleted_session_disappears(paths: BirdiePaths) -> None:
    """Deleted through the store or removed by hand, a session leaves the list at once."""
    for n in (1, 2, 3):
        write(paths, f"2026-01-02_{n}")
    store = SessionStore(paths, USER)
    assert summary_ids(store) == ["2026-01-02_3", "2026-01-02_2", "2026-01-02_1"]
    store.delete("2026-01-02_2")
    assert summary_ids(store) == ["2026-01-02_3", "2026-01-02_1"]
    paths.session_file(USER, "2026-01-02_3").unlink()
    assert summary_ids(store) == ["2026-01-02_1"]
    assert summary_ids(SessionStore(paths, USER)) == ["2026-01-02_1"]
    assert list(index_entries(paths)) == ["2026-01-02_1.json"]


def test_a_corrupt_file_is_moved_aside_and_announced_as_list_does(paths: BirdiePaths) -> None:
    """A corrupt session file found by a listing is moved aside with one warning; an index
    entry from before it broke does not hide the damage."""
    write(paths, "2026-01-02_1")
    bad = write(paths, "2026-01-02_2")
    store = SessionStore(paths, USER)
    assert len(store.summaries()) == 2
    bad.write_text("{ truncated")
    age_file(bad, 600)
    assert summary_ids(store) == ["2026-01-02_1"]
    [warning] = store.warnings
    assert "2026-01-02_2.json" in warning and "moved to" in warning
    assert not bad.exists()
    assert list(paths.user_dir(USER).glob("2026-01-02_2.json.corrupt-*"))
    assert summary_ids(store) == ["2026-01-02_1"] and len(store.warnings) == 1


def test_a_session_being_created_is_not_listed_yet(paths: BirdiePaths) -> None:
    """An empty file just claimed by another process is skipped, not reported, as by `list`."""
    write(paths, "2026-01-02_1")
    paths.session_file(USER, "2026-01-02_2").touch()
    store = SessionStore(paths, USER)
    assert summary_ids(store) == ["2026-01-02_1"] and store.warnings == []


WRITE_ONE = r"""
import json, pathlib, sys
folder = pathlib.Path(sys.argv[1])
# As Birdie 0.1.5 would: a plain write of <id>.json, nothing else.
(folder / "2026-01-03_1.json").write_text(json.dumps({
    "id": "2026-01-03_1", "user_id": "alice", "created_at": "2026-01-03T08:00:00+00:00",
    "updated_at": "2026-01-03T08:00:00+00:00", "turns": 2, "enabled_skills": [],
    "disabled_skills": []}))
"""


def test_a_session_written_by_another_process_appears(paths: BirdiePaths) -> None:
    """A session file another program writes shows in the next listing of a live store."""
    write(paths, "2026-01-02_1")
    store = SessionStore(paths, USER)
    assert summary_ids(store) == ["2026-01-02_1"]
    subprocess.run([sys.executable, "-c", WRITE_ONE, str(paths.user_dir(USER))], check=True)
    assert summary_ids(store) == ["2026-01-03_1", "2026-01-02_1"]
    [new] = store.summaries()[:1]
    assert (new.turns, new.title) == (2, None)


def test_two_stores_interleaving_writes_never_lose_a_session(paths: BirdiePaths) -> None:
    """Two stores of one folder create, save, rename and list in turn (each rewriting the
    index): every listing, by either, holds every session, with its latest title."""
    a, b = SessionStore(paths, USER), SessionStore(paths, USER)
    made: list[str] = []
    for i in range(12):
        writer, reader = (a, b) if i % 2 else (b, a)
        meta = writer.create()
        made.append(meta.id)
        writer.set_title(meta, f"title {i}")
        for store in (reader, writer):
            listed = {s.id: s.title for s in store.summaries()}
            assert set(listed) == set(made)
            assert listed[meta.id] == f"title {i}"
        if i % 3 == 0:  # age what exists so far, so both stores also cache and reuse entries
            for sid in made:
                age_file(paths.session_file(USER, sid), 3600 - i)
    assert json.loads(index_file(paths).read_bytes())["user"] == USER


CREATE_AND_LIST = r"""
import pathlib, sys, time
from birdie_tui.store import BirdiePaths, SessionStore
home, go, count = sys.argv[1:4]
while not pathlib.Path(go).exists():
    time.sleep(0.001)
store = SessionStore(BirdiePaths(pathlib.Path(home)), "alice")
mine = []
for i in range(int(count)):
    meta = store.create()
    store.set_title(meta, "made here")
    mine.append(meta.id)
    listed = {s.id for s in store.summaries()}
    missing = [sid for sid in mine if sid not in listed]
    if missing:
        sys.exit(f"lost {missing}")
print(" ".join(mine))
"""


def test_two_processes_creating_and_listing_at_once_never_lose_a_session(
        paths: BirdiePaths, tmp_path: Path) -> None:
    """Two processes create sessions and list after each one, both rewriting the index at
    the same time: neither listing ever misses a session, and the final one has them all."""
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", CREATE_AND_LIST, str(paths.home), str(go),
                               "25"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(2)]
    go.touch()
    made = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        made += out.split()
    assert len(made) == len(set(made)) == 50
    store = SessionStore(paths, USER)
    assert sorted(summary_ids(store)) == sorted(made)
    assert store.warnings == []


def test_birdie_never_sees_the_index(paths: BirdiePaths) -> None:
    """The index is hidden, not `*.json`, not a session id: globbing session files, id
    allocation and `list` all ignore it, and the session files are untouched by listing."""
    path = write(paths, "2026-01-02_1", title="Kept")
    before = path.read_bytes()
    store = SessionStore(paths, USER)
    store.summaries()
    folder = paths.user_dir(USER)
    assert index_file(paths).is_file()
    assert not INDEX_NAME.endswith(".json") and INDEX_NAME.startswith(".")
    assert [p.name for p in folder.glob("*.json")] == ["2026-01-02_1.json"]
    assert path.read_bytes() == before
    assert [m.id for m in store.list()] == ["2026-01-02_1"]
    from datetime import date
    assert store.next_id(date(2026, 1, 2)) == "2026-01-02_2"
    assert oct(index_file(paths).stat().st_mode & 0o777) == "0o600"


def test_a_stale_temp_file_is_swept_and_a_fresh_one_kept(paths: BirdiePaths) -> None:
    """A temp file left by a writer that died long ago goes; a young one may be at work."""
    write(paths, "2026-01-02_1")
    folder = paths.user_dir(USER)
    stale, young = folder / f"{INDEX_NAME}.dead.tmp", folder / f"{INDEX_NAME}.busy.tmp"
    stale.write_text("x")
    young.write_text("x")
    age_file(stale, 2 * 3600)
    SessionStore(paths, USER).summaries()
    assert not stale.exists() and young.exists()


def test_an_unwritable_index_only_costs_the_cache(paths: BirdiePaths, monkeypatch,
                                                  reads: list[str]) -> None:
    """When the index cannot be written the listing is still complete and right."""
    for n in (1, 2):
        write(paths, f"2026-01-02_{n}", title=f"T{n}")

    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(session_index.tempfile, "mkstemp", refuse)
    store = SessionStore(paths, USER)
    assert [s.title for s in store.summaries()] == ["T2", "T1"]
    assert [s.title for s in store.summaries()] == ["T2", "T1"]
    assert not index_file(paths).exists()


def test_no_folder_lists_nothing_and_writes_nothing(paths: BirdiePaths) -> None:
    """A user with no session folder yet lists nothing, and no folder is created."""
    store = SessionStore(paths, USER)
    assert store.summaries() == []
    assert not paths.user_dir(USER).exists()


def test_many_empty_looking_sessions_are_checked_against_the_history_in_chunks(
        paths: BirdiePaths) -> None:
    """1,200 sessions with no turn and no title, half of them with history: exactly that
    half is listed (the history is looked up for those ids only, in chunks SQLite accepts)."""
    paths.ensure_user_dir(USER)
    conn = sqlite3.connect(paths.checkpoints_db(USER))
    conn.execute("CREATE TABLE checkpoints (thread_id TEXT, checkpoint_id TEXT)")
    with_history = []
    for n in range(1, 1201):
        sid = f"2026-01-02_{n}"
        write(paths, sid, title=None, turns=0)
        if n % 2:
            with_history.append(sid)
            conn.execute("INSERT INTO checkpoints VALUES (?, 'c1')", (sid,))
    conn.commit()
    conn.close()
    store = SessionStore(paths, USER)
    assert sorted(summary_ids(store)) == sorted(with_history)
    assert summary_ids(store) == [m.id for m in store.list()]
    assert len(summary_ids(store, include_empty=True)) == 1200


@pytest.mark.parametrize("data", [
    {"created_at": "2026-01-01T00:00:00", "turns": "7", "title": "  ", "input_tokens": 3.0,
     "output_tokens": -4, "updated_at": ""},
    {"created_at": "2026-01-01T00:00:00", "turns": True, "title": ["x"], "input_tokens": "12",
     "token_log": "nonsense", "enabled_skills": 3, "extra": {"k": 1}},
    {"created_at": "2026-01-01T00:00:00", "updated_at": "2026-02-01T00:00:00", "turns": 2,
     "title": "Trip", "input_tokens": 5, "output_tokens": 6, "id": "other", "user_id": "bob"},
])
def test_a_summary_reads_the_list_fields_exactly_as_the_full_metadata_does(data) -> None:
    """Summaries parse only the listed keys, by the very rules `SessionMeta.from_dict` uses."""
    from birdie_tui.store import SessionMeta
    from birdie_tui.store.session_meta import SessionSummary

    expected = SessionMeta.from_dict(data, id="2026-01-02_1", user_id=USER).summary()
    assert SessionSummary.from_dict(data, id="2026-01-02_1", user_id=USER) == expected


def test_an_empty_object_session_file_is_listed_like_list_does(paths: BirdiePaths) -> None:
    """`{}` is a valid (empty) session file: listed with include_empty, defaults filled in."""
    paths.ensure_user_dir(USER)
    paths.session_file(USER, "2026-01-02_1").write_text("{}")
    store = SessionStore(paths, USER)
    [summary] = store.summaries(include_empty=True)
    assert (summary.id, summary.turns, summary.title) == ("2026-01-02_1", 0, None)
    assert [m.id for m in store.list(include_empty=True)] == ["2026-01-02_1"]
    assert store.summaries() == [] and store.warnings == []
