"""@-completion's keystroke latency in a 100,000-file tree: the real app under Pilot.

Generates a tree of --files files (in folders 4 deep, with a .gitignore hiding a tenth of
them) in a temp dir, makes it the working directory, starts `create_app([])` (offline model,
temp BIRDIE_HOME) under `App.run_test(size=(120, 40))`, and types mentions key by key. For each
key: from the press until the completion list shows the query the composer now holds
(`MentionList.shown_query`, stamped when set). Reported separately while the index is still
walking (the first mention, right after the first "@") and once it is complete, with p50, p95
and the worst; also the longest the event loop went without running (a UI freeze).

    PYTHONPATH=<tree> python bench/mentions.py [--files 100000] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quantiles import pct  # noqa: E402  (bench/, next to this file)

WORDS = ("src", "lib", "core", "utils", "app", "model", "view", "api", "data", "docs")
TYPED = ("src/core/mod", "readme", "utils/view_12", "zqzq", "api.py", "dcsmdl")


def make_tree(root: Path, files: int) -> None:
    """`files` files, 25 per folder, folders 4 deep named from WORDS; *.log ignored."""
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "README.md").write_text("# bench\n")
    made = 0
    folder_no = 0
    while made < files:
        parts = [f"{WORDS[(folder_no // 10 ** d) % 10]}{d}" for d in range(4)]
        folder = root.joinpath(f"pkg{folder_no % 40}", *parts[:1 + folder_no % 4])
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(25):
            ext = ".log" if (made % 10) == 0 else ".py"
            (folder / f"{WORDS[i % 10]}_{made}{ext}").touch()
            made += 1
        folder_no += 1


class Stalls:
    """The longest gap between ticks of a 5 ms timer on the event loop."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.005)
            last = now

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


async def measure(files: int) -> dict[str, Any]:
    from birdie_tui.tui import create_app
    from birdie_tui.tui.widgets.composer import Composer
    from birdie_tui.tui.widgets.mention_list import MentionList

    app = create_app([], cursor_blink=False)
    walking: list[float] = []
    complete: list[float] = []
    stalls = Stalls()
    async with app.run_test(size=(120, 40)) as pilot:
        while app.birdie is None or not app.ready.is_set():
            await pilot.pause(0.05)
        composer = app.query_one(Composer)
        popup = app.query_one(MentionList)
        stalls.start()
        for round_no, word in enumerate(TYPED * 3):
            composer.load_text("")
            await pilot.pause(0.05)
            for key in "@" + word:
                started = time.perf_counter()
                await pilot.press(key)
                found = composer.mention_at_cursor()
                expected = found[3] if found else None
                while popup.shown_query != expected:
                    await asyncio.sleep(0.0005)
                index = app.main.mentions.index
                took = popup.shown_at - started
                (complete if index.done.is_set() and round_no else walking).append(took)
        stalls.stop()
        entries = len(app.main.mentions.index.entries())
    return {"files": files, "indexed": entries,
            "walking": _summary(walking), "complete": _summary(complete),
            "worst_loop_stall_ms": round(stalls.worst * 1000, 1)}


def _summary(values: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {"keys": len(ms), "p50_ms": round(pct(ms, 0.5), 1),
            "p95_ms": round(pct(ms, 0.95), 1), "max_ms": round(max(ms, default=0.0), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="birdie-mentions-") as tmp:
        root = Path(tmp) / "tree"
        root.mkdir()
        started = time.perf_counter()
        make_tree(root, args.files)
        made = time.perf_counter() - started
        os.environ["BIRDIE_HOME"] = str(Path(tmp) / "home")
        os.environ["LLM_VENDOR"] = "offline"
        os.chdir(root)
        result = asyncio.run(measure(args.files))
    result["tree_s"] = round(made, 1)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['files']:,} files ({result['indexed']:,} entries indexed, "
          f"tree made in {result['tree_s']} s)")
    for phase in ("walking", "complete"):
        row = result[phase]
        print(f"  {phase:9} {row['keys']:4} keys  p50 {row['p50_ms']:6.1f} ms  "
              f"p95 {row['p95_ms']:6.1f} ms  max {row['max_ms']:6.1f} ms")
    print(f"  worst event-loop stall {result['worst_loop_stall_ms']} ms")


if __name__ == "__main__":
    main()
