"""Sessions at scale: listing and browsing 10,000 sessions.

Creates N realistic sessions in a temporary BIRDIE_HOME — Birdie 0.1.5-shaped `<id>.json` files
(ids `YYYY-MM-DD_N` over ~400 days, titles, token totals, a token log of one entry per turn,
skill grants, mtimes set to each session's `updated_at`), tombstones of deleted sessions, about
1% empty sessions (half of them with history, so the listing has to consult
`checkpoints.db`), and a `checkpoints.db` holding three checkpoints per conversation — then
measures:

  store    `SessionStore.list()` (the full metadata); and, where the store has it, the
           listing the front ends use (`SessionStore.summaries()`): cold (no index file, a new
           store), warm (index on disk, a new store), hot (the same store again)
  cli      `birdie-tui sessions list` (text and --json) as a subprocess, wall time; the first
           run after deleting the index (if any) is reported apart as "cold";
           `birdie-tui --version` is the interpreter + import floor
  browser  the real app under `App.run_test` (120x40, booted): ctrl+s posted → the dialog is
           mounted ("shown"), and → its list shows session rows ("open"); the first open after
           deleting the index (if any) is also reported alone ("first open"). Then a word typed
           one key at a time (each key posted → the list shows that filter), and the same word
           as one burst (8 keys posted at once → the list shows the whole word's filter). For each: wall time, and the longest stall of the
           event loop meanwhile (a 2 ms ticker), i.e. the UI-thread work a user waits on —
           including the interpreter's full garbage collections, which in this app (~170k
           objects after boot) take 0.1-0.3 s whenever they happen to fall in the window.

Medians over --runs (the browser's first open is also reported on its own).

    python bench/sessions_scale.py [--sessions 10000] [--runs 5] [--only store,cli,browser]
                                   [--home DIR]   # reuse/keep a generated home
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

USER = "bench"
WORD = "refactor"  # 8 keys; "Refactor …" titles are ~1 in 12, "r" alone matches most
INDEX_NAMES = (".session-index",)  # an index file, if the store keeps one (deleted for "cold")

VERBS = ["Refactor", "Explain", "Debug", "Summarise", "Plan", "Review", "Write", "Fix",
         "Translate", "Compare", "Draft", "Outline"]
THINGS = ["the parser", "weather in Lisbon", "grocery list", "the CI pipeline", "a cover letter",
          "the billing bug", "SQL query", "unit tests", "the README", "my budget",
          "the flaky test", "a haiku", "the deploy script", "holiday plans", "the API client"]
SKILLS = ["Filesystem", "Weather", "Shell", "Git", "Search"]


# ---------------------------------------------------------------------------- the data
def make_home(home: Path, n: int, seed: int = 12) -> None:
    """N sessions for USER under `home` (see the module docstring)."""
    rnd = random.Random(seed)
    folder = home / "sessions" / USER
    folder.mkdir(parents=True, exist_ok=True)
    days = 400
    start = date(2025, 10, 1)
    per_day = [0] * days
    for _ in range(n):
        per_day[rnd.randrange(days)] += 1
    threads: list[str] = []
    made = 0
    for d, count in enumerate(per_day):
        day = start + timedelta(days=d)
        for k in range(1, count + 1):
            sid = f"{day.isoformat()}_{k}"
            made += 1
            empty = rnd.random() < 0.01
            if rnd.random() < 0.02:  # a deleted session: its tombstone, a later N is live
                (folder / f"{sid}.deleted").touch()
                continue
            created = datetime(day.year, day.month, day.day, rnd.randrange(7, 23),
                               rnd.randrange(60), rnd.randrange(60), tzinfo=timezone.utc)
            turns = 0 if empty else rnd.choice([1, 1, 2, 3, 4, 5, 6, 8, 12, 20, 40])
            updated = created + timedelta(minutes=turns * rnd.randrange(1, 9))
            log = [{"input": rnd.randrange(300, 9000), "output": rnd.randrange(40, 1500)}
                   for _ in range(turns)]
            data = {
                "id": sid, "user_id": USER,
                "created_at": created.isoformat(), "updated_at": updated.isoformat(),
                "turns": turns,
                "enabled_skills": rnd.sample(SKILLS, rnd.randrange(0, 3)),
                "disabled_skills": rnd.sample(SKILLS, rnd.randrange(0, 2)),
                "title": None if empty else f"{rnd.choice(VERBS)} {rnd.choice(THINGS)}",
                "input_tokens": sum(e["input"] for e in log),
                "output_tokens": sum(e["output"] for e in log),
                "token_log": log,
            }
            path = folder / f"{sid}.json"
            path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
            stamp = updated.timestamp()
            os.utime(path, (stamp, stamp))
            if not empty or rnd.random() < 0.5:
                threads.append(sid)
    make_checkpoints(folder / "checkpoints.db", threads, rnd)
    # Sessions are written over months, not in the last second.
    time.sleep(2.1)


def make_checkpoints(db: Path, threads: list[str], rnd: random.Random) -> None:
    """LangGraph's AsyncSqliteSaver tables, three small checkpoints per thread."""
    conn = sqlite3.connect(db)
    with conn:
        conn.executescript("""
            CREATE TABLE IF NOT EXISTS checkpoints (
                thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '',
                checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT,
                checkpoint BLOB, metadata BLOB,
                PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
            CREATE TABLE IF NOT EXISTS writes (
                thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '',
                checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL,
                channel TEXT NOT NULL, type TEXT, value BLOB,
                PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
        """)
        rows = [(t, "", f"cp-{i}", f"cp-{i - 1}" if i else None, "msgpack",
                 rnd.randbytes(200), b"{}") for t in threads for i in range(3)]
        conn.executemany("INSERT INTO checkpoints VALUES (?,?,?,?,?,?,?)", rows)
    conn.close()


def drop_index(home: Path) -> None:
    for name in INDEX_NAMES:
        try:
            os.unlink(home / "sessions" / USER / name)
        except FileNotFoundError:
            pass


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# ---------------------------------------------------------------------------- store
def bench_store(home: Path, runs: int) -> dict:
    from birdie_tui.store import BirdiePaths, SessionStore

    paths = BirdiePaths(home)
    out: dict[str, list[float]] = {"list()": []}
    has_summaries = hasattr(SessionStore, "summaries")
    if has_summaries:
        out.update({"summaries() cold": [], "summaries() warm": [], "summaries() hot": []})
    count = 0
    for _ in range(runs):
        t = time.perf_counter()
        count = len(SessionStore(paths, USER).list())
        out["list()"].append(time.perf_counter() - t)
        if not has_summaries:
            continue
        drop_index(home)
        store = SessionStore(paths, USER)
        t = time.perf_counter()
        n = len(store.summaries())
        out["summaries() cold"].append(time.perf_counter() - t)
        assert n == count, (n, count)
        store = SessionStore(paths, USER)
        t = time.perf_counter()
        store.summaries()
        out["summaries() warm"].append(time.perf_counter() - t)
        t = time.perf_counter()
        store.summaries()
        out["summaries() hot"].append(time.perf_counter() - t)
    return {"listed": count, **{k: med(v) * 1000 for k, v in out.items()}}


# ---------------------------------------------------------------------------- cli
def bench_cli(home: Path, runs: int) -> dict:
    exe = Path(sys.executable).parent / "birdie-tui"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "birdie_tui.cli"]
    # This tree's package, even when another checkout is installed in the venv.
    env = {**os.environ, "BIRDIE_HOME": str(home), "PYTHONPATH": str(ROOT)}

    def wall(*args: str) -> float:
        t = time.perf_counter()
        proc = subprocess.run([*cmd, *args], env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - t
        if proc.returncode != 0:
            sys.exit(f"{args} failed: {proc.stderr}")
        return elapsed

    wall("--version")  # warm the bytecode cache
    drop_index(home)
    cold = wall("sessions", "list", "--user", USER)
    text = [wall("sessions", "list", "--user", USER) for _ in range(runs)]
    js = [wall("sessions", "list", "--user", USER, "--json") for _ in range(runs)]
    floor = [wall("--version") for _ in range(runs)]
    return {"sessions list (cold)": cold * 1000, "sessions list": med(text) * 1000,
            "sessions list --json": med(js) * 1000, "--version (floor)": med(floor) * 1000}


# ---------------------------------------------------------------------------- browser
class Ticker:
    """The longest gap between 2 ms sleeps on the event loop: UI-thread work nobody can see past."""

    def __init__(self) -> None:
        self.worst = self.last = 0.0
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self.worst, self.last = 0.0, time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def _lap(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last - 0.002)
        self.last = now

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(0.002)
            self._lap()

    def stop(self) -> float:
        """The worst gap, counting the one still open (the loop may have been blocked until
        just now, and the waiter saw the result before the ticker woke)."""
        assert self._task is not None
        self._task.cancel()
        self._lap()
        return self.worst


async def until(cond, timeout: float = 60.0) -> None:
    end = time.perf_counter() + timeout
    while not cond():
        if time.perf_counter() > end:
            raise TimeoutError("the browser never got there")
        await asyncio.sleep(0.001)


def browser_state(app, needle: str | None) -> bool:
    """The browser is up and its list shows the rows for `needle` (None: any session rows)."""
    from textual.widgets import Input, OptionList

    from birdie_tui.tui.screens.session_browser import SessionBrowser, matches

    screen = app.screen
    if not isinstance(screen, SessionBrowser) or not screen.is_mounted:
        return False
    options = screen.query_one("#sessions", OptionList)
    ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
    shown = [i for i in ids if i is not None]
    if needle is None:
        return bool(shown)
    if screen.query_one("#sessions-filter", Input).value != needle:
        return False
    rows = getattr(screen, "_rows", None) or []
    expected = [r.id for r in rows if matches(r, needle)]
    if not expected:
        return bool(ids) and not shown and needle in str(options.get_option_at_index(0).prompt)
    more = len(shown) < len(expected) and ids[-1] is None  # a capped list ends in "N more"
    return shown == expected[: len(shown)] and (len(shown) == len(expected) or more)


async def one_browse(app, pilot, events) -> dict:
    tick = Ticker()
    result: dict = {}
    tick.start()
    t = time.perf_counter()
    app.post_message(events.Key("ctrl+s", None))
    await until(lambda: type(app.screen).__name__ == "SessionBrowser" and app.screen.is_mounted)
    result["shown"] = time.perf_counter() - t  # the dialog is up (rows or "loading…")
    await until(lambda: browser_state(app, None))
    result["open"] = time.perf_counter() - t
    result["open stall"] = tick.stop()

    per_key, stalls = [], []
    for i, ch in enumerate(WORD):
        await pilot.pause()
        tick.start()
        t = time.perf_counter()
        app.post_message(events.Key(ch, ch))
        await until(lambda: browser_state(app, WORD[: i + 1]))
        per_key.append(time.perf_counter() - t)
        stalls.append(tick.stop())
    result["key"], result["key stall"] = med(per_key), max(stalls)

    app.post_message(events.Key("escape", None))  # clears the filter
    await until(lambda: browser_state(app, ""))
    await pilot.pause()
    tick.start()
    t = time.perf_counter()
    for ch in WORD:
        app.post_message(events.Key(ch, ch))
    await until(lambda: browser_state(app, WORD))
    result["burst"] = time.perf_counter() - t
    result["burst stall"] = tick.stop()

    app.post_message(events.Key("escape", None))
    await until(lambda: browser_state(app, ""))
    app.post_message(events.Key("escape", None))
    from birdie_tui.tui.screens.session_browser import SessionBrowser

    await until(lambda: not isinstance(app.screen, SessionBrowser))
    await pilot.pause()
    return result


async def bench_browser_async(home: Path, runs: int) -> dict:
    os.environ["BIRDIE_HOME"] = str(home)
    from textual import events

    from birdie_tui.tui import create_app

    app = create_app(["--user", USER], cursor_blink=False)
    samples = []
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 120)
        await pilot.pause()
        for _ in range(runs):
            samples.append(await one_browse(app, pilot, events))
    first = samples[0]
    keys = ("shown", "open", "open stall", "key", "key stall", "burst", "burst stall")
    out = {f"first {k}": first[k] * 1000 for k in ("open", "open stall")}
    out.update({k: med([s[k] for s in samples]) * 1000 for k in keys})
    return out


def bench_browser(home: Path, runs: int) -> dict:
    drop_index(home)  # the app's first listing builds it, as a first run after upgrading would
    return asyncio.run(bench_browser_async(home, runs))


# ---------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="store,cli,browser")
    parser.add_argument("--home", type=Path, help="use (and keep) this BIRDIE_HOME")
    parser.add_argument("--json", action="store_true")

    args = parser.parse_args()
    only = set(args.only.split(","))

    home = args.home or Path(tempfile.mkdtemp(prefix="birdie-scale-"))
    if not (home / "sessions" / USER).is_dir():
        t = time.perf_counter()
        make_home(home, args.sessions)
        print(f"generated {args.sessions} sessions in {time.perf_counter() - t:.1f} s: {home}",
              file=sys.stderr)
    os.environ["BIRDIE_HOME"] = str(home)
    results: dict = {}
    try:
        if "store" in only:
            results["store"] = bench_store(home, args.runs)
        if "cli" in only:
            results["cli"] = bench_cli(home, args.runs)
        if "browser" in only:
            results["browser"] = bench_browser(home, args.runs)

    finally:
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for part, values in results.items():
        print(f"[{part}]")
        for key, value in values.items():
            unit = "" if key == "listed" else " ms"
            shown = value if key == "listed" else f"{value:8.1f}"
            print(f"  {key:<24} {shown}{unit}")


if __name__ == "__main__":
    main()
