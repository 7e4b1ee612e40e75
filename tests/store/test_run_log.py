"""The run log (`RunLogProtocol`): the same tests over the embedded sqlite file beside the
sessions and a real PostgreSQL database (integration: a server is started), both had through
`open_run_log`; claims are won once per firing, by threads and by processes; hostile text is
kept as written; a damaged file is moved aside."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from birdie_tui.schedules.models import RunRecord
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.protocols import RunLogProtocol
from birdie_tui.store.run_log import RunLogError, SqliteRunLog, open_run_log

T0 = datetime(2026, 3, 14, 9, 0, tzinfo=timezone.utc)
OpenLog = Callable[..., RunLogProtocol]


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.integration)])
def url(request: pytest.FixtureRequest) -> str | None:
    """None: the embedded store; else a fresh database's URL."""
    if request.param == "embedded":
        return None
    value: str = request.getfixturevalue("pg_url")
    return value


@pytest.fixture
def open_log(url: str | None, tmp_path: Path) -> Iterator[OpenLog]:
    """Opens a user's run log (another opening is another process's view); closes them."""
    opened: list[RunLogProtocol] = []

    def open_one(user: str = "alice") -> RunLogProtocol:
        log = open_run_log(BirdiePaths(tmp_path / "home"), user, url)
        opened.append(log)
        return log
    yield open_one
    for log in opened:
        log.close()


def record(n: int, **changes: object) -> RunRecord:
    base = RunRecord(run_id=f"{n:032x}", trigger_key="digest:every", agent="digest",
                     trigger="every 30m", user="alice", status="done",
                     started_at=T0 + timedelta(minutes=n), session_id=f"2026-03-14_{n}",
                     finished_at=T0 + timedelta(minutes=n, seconds=12.5),
                     fire_time=T0 + timedelta(minutes=n), changed_paths=("a.md", "b/c.md"),
                     input_tokens=120, output_tokens=45, cost=0.0012, answer="All quiet.",
                     host="box:42")
    return base.ended(**changes)


def test_a_record_round_trips(open_log: OpenLog) -> None:
    """What `save` wrote is what `get` reads back, every field, from another opening too; a
    record saved again under its run id replaces the first (running, then done)."""
    log = open_log()
    assert isinstance(log, RunLogProtocol)
    running = record(1, status="running", finished_at=None, answer=None)
    log.save(running)
    assert open_log().get(running.run_id) == running
    done = record(1, error=None)
    log.save(done)
    again = open_log().get(done.run_id)
    assert again == done and again.duration_s == 12.5
    assert again.started_at.tzinfo is not None
    assert log.get("f" * 32) is None
    assert [r.run_id for r in log.list()] == [done.run_id]


def test_lists_are_newest_first_by_agent_and_schedule(open_log: OpenLog) -> None:
    """`list` is newest first, limited, by agent (a settings schedule's name names its
    runs); `last` is a trigger's newest; `for_session` finds the run behind a session."""
    log = open_log()
    for n in (3, 1, 2):
        log.save(record(n))
    log.save(record(4, trigger_key="other:cron", agent="other", trigger="cron 0 9 * * *"))
    log.save(record(5, trigger_key="schedule:inbox", agent=None, trigger="every 1h"))
    assert [r.run_id[-1] for r in log.list()] == ["5", "4", "3", "2", "1"]
    assert [r.run_id[-1] for r in log.list(limit=2)] == ["5", "4"]
    assert [r.run_id[-1] for r in log.list("digest")] == ["3", "2", "1"]
    assert [r.run_id[-1] for r in log.list("inbox")] == ["5"]
    assert log.list("nobody") == []
    last = log.last("digest:every")
    assert last is not None and last.run_id == record(3).run_id
    assert log.last("none:every") is None
    found = log.for_session("2026-03-14_2")
    assert found is not None and found.run_id == record(2).run_id
    assert log.for_session("2026-03-14_99") is None


def test_each_user_has_their_own_log(open_log: OpenLog) -> None:
    """Bob never sees Alice's runs."""
    open_log("alice").save(record(1))
    assert open_log("bob").list() == []


@pytest.mark.parametrize("text", ["nul \x00 inside", "\x1b]52;c;aGk=\x07 osc", "\ufdd0 and \ufdd00",
                                  "quote ' \" ; DROP TABLE runs; --", "é ✓ 🐦", "line\nbreak\r"])
def test_hostile_text_is_kept_as_written(open_log: OpenLog, text: str) -> None:
    """Answers, errors, triggers and paths with NUL, escapes, quotes or the store's own escape
    character are stored and read back unchanged (shown safely is the front end's job)."""
    log = open_log()
    hostile = record(1, answer=text, error=text, trigger=text, changed_paths=(text,), host=text)
    log.save(hostile)
    assert open_log().get(hostile.run_id) == hostile


def test_a_firing_is_claimed_once(open_log: OpenLog) -> None:
    """The first claimer of (trigger, fire time) wins, the same instant in another zone is
    the same firing, its owner asking again still holds it; another time or trigger is
    another firing; sixteen threads on two openings: one winner."""
    log, other = open_log(), open_log()
    assert log.claim("digest:every", T0, "box-a:1")
    assert not other.claim("digest:every", T0.astimezone(timezone(timedelta(hours=2))),
                           "box-b:2")
    assert log.claim("digest:every", T0, "box-a:1")
    assert other.claim("digest:every", T0 + timedelta(seconds=1), "box-b:2")
    assert other.claim("other:cron", T0, "box-b:2")
    fire = T0 + timedelta(hours=1)
    with ThreadPoolExecutor(16) as pool:
        won = list(pool.map(lambda i: (log if i % 2 else other).claim("digest:every", fire,
                                                                      f"t{i}"), range(16)))
    assert won.count(True) == 1


CLAIMER = """
import json, sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.run_log import open_run_log
home, url, owner = sys.argv[1], sys.argv[2] or None, sys.argv[3]
log = open_run_log(BirdiePaths(Path(home)), "alice", url)
t0 = datetime(2026, 3, 14, 9, 0, tzinfo=timezone.utc)
sys.stdin.readline()  # start together
won = [n for n in range(40) if log.claim("digest:every", t0 + timedelta(seconds=n), owner)]
log.close()
print(json.dumps(won))
"""


@pytest.mark.integration
def test_two_processes_claim_each_firing_once(url: str | None, tmp_path: Path) -> None:
    """Two processes (two schedulers) claim the same 40 firings at once: every firing is
    won by exactly one of them."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", CLAIMER, str(tmp_path / "home"),
                               url or "", f"proc-{i}"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env) for i in range(2)]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    won = [json.loads(proc.communicate(timeout=120)[0]) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    assert sorted(won[0] + won[1]) == list(range(40))


# ------------------------------------------------------------------ the embedded file only
def test_the_embedded_log_is_beside_the_sessions_in_wal_mode(tmp_path: Path) -> None:
    """`sessions/<user>/runs.db`, WAL, with its schema version recorded."""
    paths = BirdiePaths(tmp_path)
    SqliteRunLog(paths, "alice").close()
    db = tmp_path / "sessions" / "alice" / "runs.db"
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
    finally:
        conn.close()


@pytest.mark.parametrize("damage", [b"not a database at all" * 10, b"SQLite format 3\x00" +
                                    b"\xff" * 4000])
def test_a_damaged_log_is_moved_aside(tmp_path: Path, damage: bytes) -> None:
    """A file that is no database (or a damaged one) is renamed `runs.db.corrupt-*`, said in
    the log's warnings, and a new log starts; the session files beside it are untouched."""
    paths = BirdiePaths(tmp_path)
    folder = paths.ensure_user_dir("alice")
    (folder / "runs.db").write_bytes(damage)
    (folder / "2026-03-14_1.json").write_text("{}")
    log = SqliteRunLog(paths, "alice")
    try:
        log.save(record(1))
        assert log.get(record(1).run_id) is not None
        assert "moved to" in log.warnings[0] and "runs.db.corrupt-" in log.warnings[0]
    finally:
        log.close()
    moved = list(folder.glob("runs.db.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_bytes() == damage
    assert (folder / "2026-03-14_1.json").read_text() == "{}"


def test_a_newer_log_is_refused_not_written(tmp_path: Path) -> None:
    """A runs.db from a later birdie-tui (a higher schema version) is one clear error."""
    paths = BirdiePaths(tmp_path)
    SqliteRunLog(paths, "alice").close()
    conn = sqlite3.connect(paths.runs_db("alice"))
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(RunLogError) as caught:
        SqliteRunLog(paths, "alice")
    assert str(caught.value) == (f"the run log {paths.runs_db('alice')} has schema version 99, "
                                 "newer than this birdie-tui knows (1): upgrade birdie-tui to "
                                 "use it")


def test_a_home_it_cannot_write_is_one_line(tmp_path: Path) -> None:
    """A home whose sessions folder cannot be made (a file is in the way): a RunLogError
    naming the run log, no traceback."""
    (tmp_path / "sessions").write_text("in the way")
    with pytest.raises(RunLogError, match="cannot open the run log .*runs.db"):
        SqliteRunLog(BirdiePaths(tmp_path), "alice")
