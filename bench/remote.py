"""A turn through LangGraph server (`--server`) vs the same turn in this process.

The same skills (the bundled ones) and the offline model at full speed on both sides, so a
turn is almost all machinery: `LocalBirdie` (engine, sqlite, this process) against
`RemoteBirdie` talking to a real `langgraph dev` on loopback (tests/lg_server.py; its
in-memory runtime, one worker with 8 jobs). Turns are interleaved (local k, then remote k).
Two kinds: a plain answer, and a tool round (`read_file` in the working directory: two model
calls). Reported per kind: medians of the time to the first streamed token and to `done`, as
the front end sees them (the TUI and --print consume exactly these events), and the ratios.
Two floors put the remote figures in context: the same plain turn as a bare langgraph-sdk
`runs.stream` on a thread of its own (what RemoteBirdie adds is the rest), and a stateless
`birdie_info` run (`runs.wait`): the server's own latency for any run (`langgraph dev`'s
in-memory queue polls every 0.5 s when idle). Also: the session browser's rows for N threads
(`session_rows()`).

    python bench/remote.py [--turns 30] [--threads 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lg_server import start_server  # noqa: E402


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


async def one(door, text: str) -> tuple[float, float]:
    start = time.perf_counter()
    first = None
    last = None
    async for event in door.send(text):
        if event.type == "token" and first is None:
            first = time.perf_counter() - start
        last = event
    if last is None or last.type != "done":
        sys.exit(f"turn failed: {last}")
    return (first or 0.0) * 1000, (time.perf_counter() - start) * 1000


async def sdk_turn(client, thread_id: str, text: str) -> tuple[float, float]:
    start, first = time.perf_counter(), None
    async for part in client.runs.stream(
            thread_id, "birdie", stream_mode=["messages-tuple", "updates", "custom"],
            input={"messages": [{"type": "human", "content": text}]}):
        if part.event == "messages" and first is None:
            first = time.perf_counter() - start
    return (first or 0.0) * 1000, (time.perf_counter() - start) * 1000


async def floors(url: str, turns: int) -> dict:
    from langgraph_sdk import get_client

    client = get_client(url=url)
    thread = await client.threads.create()
    raw = [await sdk_turn(client, thread["thread_id"], f"plain turn {k}")
           for k in range(turns)]
    info = []
    for _ in range(max(5, turns // 3)):
        start = time.perf_counter()
        await client.runs.wait(None, "birdie_info", input={})
        info.append((time.perf_counter() - start) * 1000)
    return {"sdk stream first token ms": med([f for f, _ in raw]),
            "sdk stream done ms": med([d for _, d in raw]),
            "birdie_info run ms": med(info)}


async def bench(turns: int, threads: int) -> dict:
    from birdie_tui.service import local_birdie, remote_birdie

    work = Path(tempfile.mkdtemp(prefix="bench-remote-"))
    (work / "work").mkdir()
    (work / "work" / "notes.txt").write_text("hello from the working directory\n")
    server = start_server(home=work / "server-home", workdir=work / "work")
    os.chdir(work / "work")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BIRDIE_", "LLM_"))}
    local = local_birdie(environ={**env, "BIRDIE_HOME": str(work / "local-home")})
    remote = remote_birdie(str(server), environ={**env, "BIRDIE_HOME": str(work / "ui-home")})
    try:
        await local.start()
        await remote.start()
        doors = {"local": local, "remote": remote}
        results = {f"{kind} {name}": ([], []) for kind in ("plain", "tool") for name in doors}
        texts = {"plain": "plain turn {k}",
                 "tool": 'call read_file {"path": "' + str(work / "work" / "notes.txt") + '"}'}
        for k in range(-3, turns):  # three warm-up rounds
            for kind in ("plain", "tool"):
                for name, door in doors.items():
                    first, done = await one(door, texts[kind].replace("{k}", str(k)))
                    if k >= 0:
                        results[f"{kind} {name}"][0].append(first)
                        results[f"{kind} {name}"][1].append(done)
        out: dict = {}
        for kind in ("plain", "tool"):
            (lf, ld), (rf, rd) = results[f"{kind} local"], results[f"{kind} remote"]
            out[kind] = {"local first token ms": med(lf), "remote first token ms": med(rf),
                         "local done ms": med(ld), "remote done ms": med(rd),
                         "done ratio": med(rd) / med(ld)}
        out["floors (plain turn)"] = await floors(str(server), turns)
        for _ in range(threads):  # more threads for the browser
            await remote.new_session()
            await one(remote, "hello")
        rows = []
        for _ in range(5):
            t = time.perf_counter()
            listed = await asyncio.to_thread(remote.session_rows)
            rows.append((time.perf_counter() - t) * 1000)
        out["browser"] = {"threads": len(listed), "session_rows ms": med(rows)}
        return out
    finally:
        await remote.close()
        await local.close()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--threads", type=int, default=200)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(bench(args.turns, args.threads)), indent=2))


if __name__ == "__main__":
    main()
