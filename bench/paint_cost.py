"""What one paint of the chat costs, Textual's way against the settled screen's, on one frame.

The parent runs `sse_server.py` (10,000 tokens of Markdown at --tps) and starts a child that
runs the real app headless at 120×40 (as `frame_cost.py` does). --skip seconds after the first
token, with the reply mid-stream, the child stops the loop and paints the chat's rows
(`#chat`'s region marked dirty, `render_update`, then the update's `render_segments`, what the
driver writes) --paints times with each compositor in turn, in --rounds interleaved blocks:

  before   main at 6b4f3d1: `CroppedCompositor` with Textual's `_render_chops` and `ChopsUpdate`
  covered  + rows covered by widgets in front not rendered (`tui/paint.py`, `render_chops`)
  joined   + cursor moves only where the cursor is not already (`JoinedChopsUpdate`)

CPU by `thread_time`, per paint, median over the rounds; nothing else runs in between, so the
other engineers' load moves all three alike. Each paint draws the same frame (the widgets'
line caches warm, as for the rows a streamed frame only moves).

    PYTHONPATH=<tree> python bench/paint_cost.py [--tps 200] [--skip 4] [--paints 200]
                                                [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from headless_reply import FirstToken, run_child as run_reply, send_prompt, wait_ready  # noqa: E402

MOVE = re.compile(r"\x1b\[\d+;\d+H")  # what `Control.move_to` writes


def variants() -> dict[str, type]:
    from textual._compositor import Compositor

    from birdie_tui.tui.layout_pass import CroppedCompositor

    class Before(CroppedCompositor):
        _render_chops = Compositor._render_chops  # type: ignore[assignment]
        render_partial_update = Compositor.render_partial_update  # type: ignore[assignment]

    class Covered(CroppedCompositor):
        render_partial_update = Compositor.render_partial_update  # type: ignore[assignment]

    return {"before": Before, "covered": Covered, "joined": CroppedCompositor}


def measure(app: Any, paints: int, rounds: int) -> dict[str, Any]:
    compositor = app.screen._compositor
    home = type(compositor)
    region = app.query_one("#chat").region
    console = app.console
    now = time.thread_time
    times: dict[str, dict[str, list[float]]] = {}
    sizes: dict[str, tuple[int, int]] = {}
    try:
        for _ in range(rounds):
            for name, cls in variants().items():
                compositor.__class__ = cls
                render = write = 0.0
                for _ in range(paints):
                    compositor._dirty_regions.add(region)
                    start = now()
                    update = compositor.render_update()
                    middle = now()
                    written = update.render_segments(console)
                    render += middle - start
                    write += now() - middle
                sizes[name] = len(written), len(MOVE.findall(written))
                slot = times.setdefault(name, {"render_update": [], "write": []})
                slot["render_update"].append(1e6 * render / paints)
                slot["write"].append(1e6 * write / paints)
    finally:
        compositor.__class__ = home
    return {name: {"render_update_us": statistics.median(t["render_update"]),
                   "write_us": statistics.median(t["write"]),
                   "all_render_update_us": t["render_update"], "all_write_us": t["write"],
                   "chars": sizes[name][0], "moves": sizes[name][1]}
            for name, t in times.items()}


async def run_child(skip: float, paints: int, rounds: int) -> dict[str, Any]:
    from birdie_tui.tui import create_app

    first = FirstToken()
    app = create_app([], cursor_blink=False)
    async with app.run_test(size=(120, 40), message_hook=first) as pilot:
        await wait_ready(app)
        await pilot.pause()
        await send_prompt(app, pilot, first, skip)
        result = measure(app, paints, rounds)  # the loop waits: one frame, painted many times
        await app.main.turns.cancel()
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tps", type=float, default=200.0)
    parser.add_argument("--skip", type=float, default=4.0)
    parser.add_argument("--paints", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        print("RESULT " + json.dumps(asyncio.run(run_child(opts.skip, opts.paints,
                                                           opts.rounds))))
        return
    result = run_reply(__file__, ["--skip", str(opts.skip), "--paints", str(opts.paints),
                                  "--rounds", str(opts.rounds)], tps=opts.tps, prefix="birdie-paint-")
    print(f"load {os.getloadavg()[0]:.2f}; {opts.paints} paints × {opts.rounds} rounds of the "
          f"chat's rows, {opts.skip:g} s into the reply")
    for name, row in result.items():
        print(f"{name:8s} render_update {row['render_update_us']:7.0f} µs  "
              f"write {row['write_us']:6.0f} µs  {row['chars']} chars, {row['moves']} moves")


if __name__ == "__main__":
    main()
