"""Sessions in PostgreSQL: a turn's cost with the Postgres store vs the embedded one,
and listing 10,000 sessions from Postgres.

  turns   two Engines in one process, same skills (the bundled ones), the offline model at full
          speed (so a turn is almost all engine and store): one on the embedded store (sqlite
          + session JSON in a temp BIRDIE_HOME), one on a fresh database of a real PostgreSQL
          server on loopback (tests/pg_server.py, with PostgreSQL's default durability:
          fsync and synchronous commit on, as sqlite syncs too). Turns are interleaved (embedded k, then
          Postgres k) so machine noise falls on both. Two kinds: a plain answer (one model
          call) and a tool round (the model calls `read_file` on a file in the working
          directory, then answers: two model calls, three checkpoints). Reported: medians of
          wall time and of this process's CPU time per turn, and the Postgres/embedded ratios.
          The server's own CPU is not in the CPU figure (it is another process): wall time is
          the one a user feels.
  list    N sessions (default 10,000, the same generator as bench/sessions_scale.py) written
          into the database as they are (`PgTransferStore.put`, what `sessions import` uses; timed), then
          `PgSessionStore.summaries()` (a new store each time, and the same store again), and
          `birdie-tui sessions list [--json]` as a subprocess against the database; the
          embedded `sessions list` on the same generated home (index warm) for comparison.

    python bench/postgres.py [--turns 40] [--sessions 10000] [--runs 5] [--only turns,list]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tests.pg_server import PgServer, find_bindir  # noqa: E402


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# ---------------------------------------------------------------------------- turns
async def bench_turns(url: str, turns: int) -> dict:
    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig
    from birdie_tui.store import BirdiePaths

    work = Path(tempfile.mkdtemp(prefix="bench-pg-"))
    (work / "notes.txt").write_text("hello from the working directory\n")
    os.chdir(work)  # read_file inside the working directory needs no approval
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BIRDIE_", "LLM_"))}
    engines = {}
    for name, db in (("embedded", None), ("postgres", url)):
        home = work / name
        home.mkdir()
        engine = Engine(EngineOptions(provider=ProviderConfig(vendor="offline"),
                                      paths=BirdiePaths(home), database_url=db, user="bench",
                                      environ={**env, "BIRDIE_HOME": str(home)}))
        await engine.start()
        await engine.open_session(None)
        engines[name] = engine
    results: dict[str, dict[str, list[float]]] = {
        f"{kind} {name}": {"wall": [], "cpu": []}
        for kind in ("plain", "tool") for name in engines}

    async def one(name: str, kind: str, k: int) -> None:
        text = f"plain turn {k}" if kind == "plain" else \
            f'call read_file {{"path": "{work / "notes.txt"}"}}'
        wall, cpu = time.perf_counter(), time.process_time()
        events = [e async for e in engines[name].run_turn(text)]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if events[-1].type != "done":
            sys.exit(f"{name} turn failed: {events[-1]}")
        if kind == "tool" and not any(e.type == "tool_result" for e in events):
            sys.exit(f"{name}: the tool did not run")
        results[f"{kind} {name}"]["wall"].append(wall * 1000)
        results[f"{kind} {name}"]["cpu"].append(cpu * 1000)

    try:
        for k in range(3):  # warm-up: imports, first connections, prepared plans
            for name in engines:
                await one(name, "plain", -k)
        for key in results:
            results[key] = {"wall": [], "cpu": []}
        for k in range(turns):
            for kind in ("plain", "tool"):
                for name in engines:
                    await one(name, kind, k)
    finally:
        for engine in engines.values():
            await engine.aclose()
    out: dict = {}
    for kind in ("plain", "tool"):
        emb, pg = results[f"{kind} embedded"], results[f"{kind} postgres"]
        out[kind] = {
            "embedded wall ms": med(emb["wall"]), "postgres wall ms": med(pg["wall"]),
            "wall ratio": med(pg["wall"]) / med(emb["wall"]),
            "embedded cpu ms": med(emb["cpu"]), "postgres cpu ms": med(pg["cpu"]),
            "cpu ratio": med(pg["cpu"]) / med(emb["cpu"]),
        }
    return out


# ---------------------------------------------------------------------------- list
def bench_list(url: str, n: int, runs: int) -> dict:
    from sessions_scale import USER, make_home

    from birdie_tui.store.pg.bulk import PgTransferStore
    from birdie_tui.store.pg.sessions import PgSessionStore

    home = Path(tempfile.mkdtemp(prefix="bench-pg-home-"))
    make_home(home, n)
    files = sorted((home / "sessions" / USER).glob("*.json"))
    store = PgTransferStore(url, USER)
    t = time.perf_counter()
    for path in files:
        store.put(json.loads(path.read_text()), USER)
    imported = time.perf_counter() - t
    store.close()

    def summaries_new() -> float:
        t = time.perf_counter()
        fresh = PgSessionStore(url, USER)
        rows = fresh.summaries()
        elapsed = time.perf_counter() - t
        fresh.close()
        assert len(rows) > n * 0.9, len(rows)
        return elapsed

    same = PgSessionStore(url, USER)
    same.summaries()

    def summaries_same() -> float:
        t = time.perf_counter()
        same.summaries()
        return time.perf_counter() - t

    new_store = [summaries_new() for _ in range(runs)]
    hot = [summaries_same() for _ in range(runs)]
    same.close()

    exe = Path(sys.executable).parent / "birdie-tui"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "birdie_tui.cli"]
    env = {**os.environ, "BIRDIE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("BIRDIE_DATABASE_URL", None)

    def wall(*args: str, db: str | None = None) -> float:
        full = {**env, **({"BIRDIE_DATABASE_URL": db} if db else {})}
        t = time.perf_counter()
        proc = subprocess.run([*cmd, *args], env=full, capture_output=True, text=True)
        elapsed = time.perf_counter() - t
        if proc.returncode != 0:
            sys.exit(f"{args} failed: {proc.stderr}")
        return elapsed

    wall("--version")
    wall("sessions", "list", "--user", USER)  # builds the embedded index
    out = {
        "sessions": len(files), "import (insert) s": imported,
        "summaries(), new store ms": med(new_store) * 1000,
        "summaries(), same store ms": med(hot) * 1000,
        "cli sessions list (postgres) ms": med(
            [wall("sessions", "list", "--user", USER, db=url) for _ in range(runs)]) * 1000,
        "cli sessions list --json (postgres) ms": med(
            [wall("sessions", "list", "--user", USER, "--json", db=url)
             for _ in range(runs)]) * 1000,
        "cli sessions list (embedded, warm index) ms": med(
            [wall("sessions", "list", "--user", USER) for _ in range(runs)]) * 1000,
        "cli --version (floor) ms": med([wall("--version") for _ in range(runs)]) * 1000,
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="turns,list")
    args = parser.parse_args()
    bindir = find_bindir()
    if bindir is None:
        sys.exit("PostgreSQL server binaries not found (apt-get install postgresql)")
    server = PgServer(bindir, durable=True)  # fsync on, as sqlite syncs its commits
    server.start()
    try:
        report: dict = {}
        if "turns" in args.only:
            report["turns"] = asyncio.run(bench_turns(server.url(server.create_database()),
                                                      args.turns))
        if "list" in args.only:
            report["list"] = bench_list(server.url(server.create_database()), args.sessions,
                                        args.runs)
        print(json.dumps(report, indent=2))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
