"""How `checkpoints.db` grows with a session (the claim to check: "storage grows linearly").

A 40-turn session, in this process, with the real engine and the offline model, in a temporary
BIRDIE_HOME: every turn is ``call big``, a ``bash:`` tool that prints 32 KB (base64 of random
bytes: nothing compresses), so each turn adds a user message, an AI message with the call, a
32,000-character tool result (the engine's cap, with its note) and the model's short summary.

Measured after turns 10, 20, 30 and 40, and once more after the engine closed (at rest): the
database file and its WAL on disk, the number of checkpoint and write rows, and the size of
the conversation itself — the latest checkpoint's blob (what a history read deserialises) and
the sum of the messages' text.

Two modes, both run by default:
  prune  what birdie-tui does: each checkpoint written drops the thread's older ones
  keep   pruning off (``engine.prune_checkpoints = False``): what every version before did —
         a checkpoint per graph step, each holding the whole history, kept forever; then
         that file is opened once more by an engine with pruning on ("reopened": an old file
         is pruned and vacuumed at start; its seconds are that start's)

    python bench/storage.py [--turns 40] [--kb 32] [--mode prune|keep|both] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SKILL = """\
---
name: Bulky
description: A tool with a big output.
---

## Tools

### big
description: Print {kb} KB of text.
entrypoint: bash:head -c {raw} /dev/urandom | base64 -w 100
schema:
  type: object
  properties: {{}}
"""


def _sizes(db: Path) -> dict[str, int]:
    wal = db.with_name(db.name + "-wal")
    conn = sqlite3.connect(db)
    try:
        checkpoints = conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]
        writes = conn.execute("SELECT count(*) FROM writes").fetchone()[0]
        latest = conn.execute("SELECT length(checkpoint) FROM checkpoints "
                              "ORDER BY checkpoint_id DESC LIMIT 1").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0] * \
            conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    return {"db_bytes": db.stat().st_size, "wal_bytes": wal.stat().st_size if wal.exists() else 0,
            "free_bytes": free, "checkpoints": checkpoints, "writes": writes,
            "latest_blob_bytes": latest}


async def run(mode: str, turns: int, kb: int) -> list[dict[str, Any]]:
    home = Path(tempfile.mkdtemp(prefix=f"bench-storage-{mode}-"))
    os.environ["BIRDIE_HOME"] = str(home)
    skills = home / "bench-skills" / "bulky"
    skills.mkdir(parents=True)
    (skills / "SKILL.MD").write_text(SKILL.format(kb=kb, raw=kb * 1024 * 3 // 4))

    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig
    from birdie_tui.text import content_text

    engine = Engine(EngineOptions(user="bench", skills_dirs=[skills.parent],
                                  provider=ProviderConfig(vendor="offline")))
    engine.prune_checkpoints = mode == "prune"
    await engine.start()
    rows = []
    try:
        await engine.open_session(None)
        started = time.perf_counter()
        for turn in range(1, turns + 1):
            async for event in engine.run_turn("call big"):
                if event.type == "error":
                    raise SystemExit(f"turn {turn}: {event.message}")
            if turn % 10 == 0 or turn == turns:
                history = await engine.messages()
                db = engine.paths.checkpoints_db(engine.user)
                row = {"mode": mode, "turn": turn, "messages": len(history),
                       "text_bytes": sum(len(content_text(m.content).encode())
                                         for m in history),
                       **_sizes(db), "seconds": round(time.perf_counter() - started, 2)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        await engine.aclose()
    # At rest: the last connection closed (sqlite folds the WAL back into the file).
    db = engine.paths.checkpoints_db(engine.user)
    rest = {**rows[-1], **_sizes(db), "turn": f"{rows[-1]['turn']} (closed)"}
    rows.append(rest)
    print(json.dumps(rest), flush=True)
    if mode == "keep":  # an old file, opened by this version: pruned and vacuumed at start
        again = Engine(EngineOptions(user="bench", skills_dirs=[skills.parent],
                                     provider=ProviderConfig(vendor="offline")))
        began = time.perf_counter()
        await again.start()
        opened = time.perf_counter() - began
        await again.aclose()
        rows.append({**rest, **_sizes(db), "turn": f"{turns} (reopened)",
                     "seconds": round(opened, 2)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def _mb(n: int) -> str:
    return f"{n / 1e6:.2f} MB"


def table(rows: list[dict[str, Any]]) -> str:
    out = ["| mode | turns | messages | text | latest checkpoint | db | wal | db+wal ÷ text "
           "| rows (checkpoints/writes) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        total = r["db_bytes"] + r["wal_bytes"]
        out.append(f"| {r['mode']} | {r['turn']} | {r['messages']} | {_mb(r['text_bytes'])} "
                   f"| {_mb(r['latest_blob_bytes'])} | {_mb(r['db_bytes'])} "
                   f"| {_mb(r['wal_bytes'])} | {total / r['text_bytes']:.1f}× "
                   f"| {r['checkpoints']}/{r['writes']} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__ or "").split("\n")[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--kb", type=int, default=32)
    parser.add_argument("--mode", choices=("prune", "keep", "both"), default="both")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    modes = ("keep", "prune") if args.mode == "both" else (args.mode,)
    rows: list[dict[str, Any]] = []
    for mode in modes:
        rows += asyncio.run(run(mode, args.turns, args.kb))
    print()
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
