"""What one streamed frame costs at turn 1: the real app, headless, against the loopback server.

The parent runs `sse_server.py` (10,000 tokens of Markdown at --tps, 200) and starts a child
that runs `create_app([])` under `App.run_test(size=(120, 40))` with the same variables
`peers.py` gives birdie-tui (as `streaming.py` does). The child sends the prompt and, from
--skip seconds after the first token for --window seconds, measures:

  cpu           the child's CPU (all threads) per second of the window, and the UI thread's
  frames        full layout passes / scroll-only passes / compositor refreshes per second
  layout        time in `Screen._refresh_layout` before its paint: `Compositor.reflow`
                (arrange every widget) and the rest (sizes, events)
  paint         `Compositor.render_update`: the widgets' `render_lines` (strips) and the
                compositor's cutting and joining of them (`_render_chops` without the renders)
  write         what the terminal driver would write: headless Textual skips it, so the child
                renders each update to its escape sequence (`render_segments`) and times it
                (this is work the real app does; it is counted in cpu)
  markdown      `Markdown.append` (parse of the last block, its widgets updated or mounted)
  rows          lines rendered per paint (`render_lines`), by widget class
  paints        compositor refreshes that drew something (a refresh may find nothing to draw)
  gaps          the worst gap between two paints in the window, and the ten worst
  longest       the longest single call of each timed step (a segment split's stall shows here)

--profile writes a cProfile of the UI thread over the window to the given file (then the
timings above include the profiler's overhead; compare them only with each other).

    PYTHONPATH=<tree> python bench/frame_cost.py [--tps 200] [--skip 3] [--window 20]
                                                [--profile FILE] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from headless_reply import FirstToken, run_child as run_reply, send_prompt, wait_ready  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Meter:
    """Wraps Textual's frame steps with timers; on only inside the window."""

    def __init__(self) -> None:
        self.on = False
        self.time: collections.Counter[str] = collections.Counter()
        self.count: collections.Counter[str] = collections.Counter()
        self.rows: collections.Counter[str] = collections.Counter()
        self.paints: list[float] = []
        self.longest: collections.Counter[str] = collections.Counter()  # worst single call
        self.depth = 0

    def wrap(self, cls: type, name: str, key: str, *, sync: bool = True) -> None:
        original = getattr(cls, name)
        meter = self
        now = time.thread_time  # CPU, not wall: others' load skews it less

        if sync:
            def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
                if not meter.on:
                    return original(self, *args, **kwargs)
                start = now()
                try:
                    return original(self, *args, **kwargs)
                finally:
                    took = now() - start
                    meter.time[key] += took
                    meter.count[key] += 1
                    meter.longest[key] = max(meter.longest[key], took)
        else:
            async def timed(self: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
                if not meter.on:
                    return await original(self, *args, **kwargs)
                start = now()
                try:
                    return await original(self, *args, **kwargs)
                finally:
                    took = now() - start
                    meter.time[key] += took
                    meter.count[key] += 1
                    meter.longest[key] = max(meter.longest[key], took)
        setattr(cls, name, timed)


def install(meter: Meter) -> None:
    from textual._compositor import Compositor
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.widgets import Markdown

    now = time.thread_time
    refresh_layout = Screen._refresh_layout

    def layout(self: Screen, size: Any = None, scroll: bool = False) -> None:
        if meter.on:
            full = not (scroll and not self._layout_widgets)
            meter.count["layout_full" if full else "layout_scroll"] += 1
        refresh_layout(self, size, scroll)

    Screen._refresh_layout = layout  # type: ignore[method-assign]
    meter.wrap(Screen, "_refresh_layout", "layout+paint")
    meter.wrap(Compositor, "reflow", "reflow")
    meter.wrap(Compositor, "reflow_visible", "reflow_visible")
    meter.wrap(Compositor, "render_update", "render_update")

    render_lines = Widget.render_lines

    def lines(self: Widget, crop: Any) -> Any:
        if not meter.on:
            return render_lines(self, crop)
        start = now()
        try:
            return render_lines(self, crop)
        finally:
            meter.time["render_lines"] += now() - start
            meter.rows[type(self).__name__] += crop.height

    Widget.render_lines = lines  # type: ignore[method-assign]

    display = App._display

    def shown(self: App[Any], screen: Screen, renderable: Any) -> None:
        if meter.on and renderable is not None:
            meter.paints.append(time.perf_counter())
            meter.count["paints"] += 1
            start = now()
            # Headless Textual writes nothing: do what the real driver's caller does.
            if hasattr(renderable, "render_segments"):
                meter.count["written_chars"] += len(renderable.render_segments(self.console))
            meter.time["write"] += now() - start
        display(self, screen, renderable)

    App._display = shown  # type: ignore[method-assign]
    meter.wrap(Screen, "_compositor_refresh", "compositor_refresh")
    append = Markdown.append

    def timed_append(self: Markdown, markdown: str) -> Any:
        pending = append(self, markdown)
        if not meter.on:
            return pending
        from textual.await_complete import AwaitComplete

        async def run() -> None:
            start = now()
            await pending
            meter.time["markdown_append"] += now() - start
            meter.count["markdown_append"] += 1

        return AwaitComplete(run())

    Markdown.append = timed_append  # type: ignore[method-assign]


async def run_child(skip: float, window: float, profile: str | None) -> dict[str, Any]:
    from birdie_tui.tui import create_app

    meter = Meter()
    install(meter)
    first = FirstToken()
    app = create_app([], cursor_blink=False)
    async with app.run_test(size=(120, 40), message_hook=first) as pilot:
        await wait_ready(app)
        await pilot.pause()
        await send_prompt(app, pilot, first, skip)
        profiler = None
        if profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        meter.on = True
        wall0, cpu0, thread0 = time.perf_counter(), _cpu(), time.thread_time()
        await asyncio.sleep(window)
        wall, cpu, thread = (time.perf_counter() - wall0, _cpu() - cpu0,
                             time.thread_time() - thread0)
        meter.on = False
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile)
        await app.main.turns.cancel()
    paints = [p for p in meter.paints]
    gaps = [b - a for a, b in zip(paints, paints[1:])]
    per_s = {k: v / wall for k, v in meter.count.items()}
    return {
        "window_s": wall,
        "cpu_cores": cpu / wall,
        "ui_thread_cores": thread / wall,
        "per_s": per_s,
        "ms_per_s": {k: 1000 * v / wall for k, v in meter.time.items()},
        "rows_per_paint": {k: v / max(1, len(paints)) for k, v in meter.rows.most_common()},
        "worst_gap_ms": 1000 * max(gaps, default=0.0),
        "worst_gaps_ms": [round(1000 * g, 1) for g in sorted(gaps, reverse=True)[:10]],
        "longest_ms": {k: round(1000 * v, 1) for k, v in meter.longest.most_common()},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tps", type=float, default=200.0)
    parser.add_argument("--skip", type=float, default=3.0)
    parser.add_argument("--window", type=float, default=20.0)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        result = asyncio.run(run_child(opts.skip, opts.window, opts.profile))
        print("RESULT " + json.dumps(result))
        return
    args = ["--skip", str(opts.skip), "--window", str(opts.window)]
    result = run_reply(__file__, args + (["--profile", opts.profile] if opts.profile else []),
                       tps=opts.tps, prefix="birdie-frame-")
    print(f"load {os.getloadavg()[0]:.2f}; window {result['window_s']:.1f} s at {opts.tps:g} tok/s")
    print(f"cpu {result['cpu_cores']:.3f} cores (UI thread {result['ui_thread_cores']:.3f}); "
          f"worst paint gap {result['worst_gap_ms']:.0f} ms")
    print("per second:", ", ".join(f"{k} {v:.1f}" for k, v in sorted(result["per_s"].items())))
    print("ms per second:", ", ".join(f"{k} {v:.1f}" for k, v in
                                      sorted(result["ms_per_s"].items())))
    print("ten worst paint gaps (ms):", ", ".join(f"{g:.0f}" for g in result["worst_gaps_ms"]))
    print("longest single call (ms):", ", ".join(f"{k} {v:.1f}" for k, v in
                                                 result["longest_ms"].items()))
    print("rows per paint:", ", ".join(f"{k} {v:.1f}" for k, v in
                                       result["rows_per_paint"].items()))
    if opts.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
