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
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sse_server  # noqa: E402  (bench/, next to this file)

PROMPT = "Please write the bird survey report"
PROMPT_WORD = "survey"
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
    from birdie_tui.tui.messages import EngineEvent

    first: list[float] = []

    def hook(message: object) -> None:
        if not first and isinstance(message, EngineEvent) and message.type == "token":
            first.append(time.perf_counter())

    app = create_app([], cursor_blink=False)
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        deadline = time.perf_counter() + 120
        while not (app.birdie is not None and app.ready.is_set()):
            if time.perf_counter() > deadline:
                raise SystemExit("engine did not become ready")
            await asyncio.sleep(0.05)
        await pilot.pause()
        composer = app.query_one("#composer")
        composer.load_text(PROMPT)  # type: ignore[attr-defined]
        composer.focus()
        await pilot.press("enter")
        while not first:
            await asyncio.sleep(0.01)
        await asyncio.sleep(max(0.0, first[0] + skip - time.perf_counter()))
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
    srv = sse_server.SSEServer(tps=opts.tps, tokens=10_000, prompt_word=PROMPT_WORD,
                               long_once=True).start()
    try:
        env = {**os.environ, "BIRDIE_HOME": tempfile.mkdtemp(prefix="birdie-paint-"),
               "OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": srv.base_url,
               "LLM_VENDOR": "openai", "LLM_MODEL": "gpt-4o-mini", "BIRDIE_WATCH": "0"}
        for key in ("ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "GEMINI_API_KEY",
                    "LLM_PROVIDER_CONFIG", "BIRDIE_OFFLINE_TPS"):
            env.pop(key, None)
        cmd = [sys.executable, __file__, "--child", "--skip", str(opts.skip),
               "--paints", str(opts.paints), "--rounds", str(opts.rounds)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    finally:
        srv.stop()
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"child failed (rc {out.returncode}):\n{out.stdout[-3000:]}\n"
                         f"{out.stderr[-3000:]}")
    result = json.loads(lines[-1][len("RESULT "):])
    print(f"load {os.getloadavg()[0]:.2f}; {opts.paints} paints × {opts.rounds} rounds of the "
          f"chat's rows, {opts.skip:g} s into the reply")
    for name, row in result.items():
        print(f"{name:8s} render_update {row['render_update_us']:7.0f} µs  "
              f"write {row['write_us']:6.0f} µs  {row['chars']} chars, {row['moves']} moves")


if __name__ == "__main__":
    main()
