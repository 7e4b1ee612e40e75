"""Who asks for the frames: every layout pass and compositor refresh of the real app, traced
to the widget and the code that asked for it, while a reply streams and with the app idle.

The parent runs `sse_server.py` as `frame_cost.py` does and starts a child that runs the app
headless (`run_test(size=(120, 40))`). The child wraps `Widget.refresh` (who asked, with
`layout=True` or a repaint, and from which line of birdie_tui or Textual), `Screen._refresh_layout`
(a full pass: the layout requests pending since the last one), `Screen._compositor_refresh`
(the repaint requests pending, and whether the paint drew anything) and `Widget.render_lines`
(did a widget draw the same strips at the same place as its last render there).

Two windows: --idle seconds with the app open and nothing sent, then --window seconds of a
10,000-token reply from --skip seconds after its first token.

    PYTHONPATH=<tree> python bench/frame_sources.py [--idle 10] [--skip 3] [--window 10]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from headless_reply import FirstToken, run_child as run_reply, send_prompt, wait_ready  # noqa: E402

HERE = Path(__file__).resolve()
SKIP = ("/textual/", "/rich/", "/asyncio/", str(HERE))


def origin() -> str:
    """The first line outside Textual that led here, with the Textual call it made."""
    frames = traceback.extract_stack()[:-2]
    textual = ""
    for frame in reversed(frames):
        if any(part in frame.filename for part in SKIP):
            if "/textual/" in frame.filename and not textual:
                textual = f"{Path(frame.filename).name}:{frame.name}"
            continue
        where = frame.filename.split("birdie_tui/")[-1]
        return f"{where}:{frame.lineno} {frame.name} <- {textual}"
    return f"textual {textual}"


class Trace:
    def __init__(self) -> None:
        self.on = False
        self.counts: collections.Counter[str] = collections.Counter()
        self.layout_asks: dict[str, int] = {}  # since the last full pass
        self.repaint_asks: dict[str, int] = {}  # since the last paint
        self.layout_causes: collections.Counter[str] = collections.Counter()
        self.paint_causes: collections.Counter[str] = collections.Counter()
        self.empty_causes: collections.Counter[str] = collections.Counter()
        self.combos: collections.Counter[str] = collections.Counter()
        self.refreshes: collections.Counter[str] = collections.Counter()
        self.same: collections.Counter[str] = collections.Counter()
        self.changed: collections.Counter[str] = collections.Counter()
        self.timeline: list[str] = []
        self.t0 = time.perf_counter()
        self.last_lines: dict[tuple[int, Any, Any], Any] = {}

    def log(self, what: str) -> None:
        if self.on and len(self.timeline) < 400:
            self.timeline.append(f"{1000 * (time.perf_counter() - self.t0):8.1f} {what}")

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]


def install(trace: Trace) -> None:
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

    refresh = Widget.refresh

    def traced_refresh(self: Widget, *regions: Any, repaint: bool = True, layout: bool = False,
                       recompose: bool = False) -> Any:
        if trace.on:
            mounted = "" if self.is_mounted else " (unmounted)"
            key = f"{type(self).__name__}#{self.id or ''}{mounted} {origin()}"
            if layout:
                trace.log("ask layout " + key)
                trace.layout_asks[key] = trace.layout_asks.get(key, 0) + 1
                trace.refreshes["layout  " + key] += 1
            elif repaint:
                trace.repaint_asks[key] = trace.repaint_asks.get(key, 0) + 1
                trace.refreshes["repaint " + key] += 1
        return refresh(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    Widget.refresh = traced_refresh  # type: ignore[method-assign]

    refresh_layout = Screen._refresh_layout

    def traced_layout(self: Screen, size: Any = None, scroll: bool = False) -> None:
        if trace.on:
            full = not (scroll and not self._layout_widgets)
            widgets = sorted({type(w).__name__ for ws in self._layout_widgets.values() for w in ws})
            trace.log(f"pass full={full} scroll={scroll} layout_widgets={widgets}")
            trace.counts["layout_full" if full else "layout_scroll"] += 1
            if full:
                asks = trace.layout_asks or {f"(no widget asked) {origin()}": 1}
                for key in asks:
                    trace.layout_causes[key] += 1
                trace.combos[" + ".join(sorted({k.split(" ")[0] for k in asks}))] += 1
                trace.layout_asks = {}
        refresh_layout(self, size, scroll)

    Screen._refresh_layout = traced_layout  # type: ignore[method-assign]

    compositor_refresh = Screen._compositor_refresh

    def traced_compositor(self: Screen) -> None:
        if not trace.on:
            return compositor_refresh(self)
        trace.counts["compositor_refresh"] += 1
        before = trace.counts["paints"]
        asks, trace.repaint_asks = trace.repaint_asks, {}
        compositor_refresh(self)
        painted = trace.counts["paints"] > before
        trace.log(f"compositor painted={painted} asks={sorted(asks)}")
        for key in asks or {"(none)": 1}:
            (trace.paint_causes if painted else trace.empty_causes)[key] += 1

    Screen._compositor_refresh = traced_compositor  # type: ignore[method-assign]

    on_layout = Screen._on_layout

    async def traced_on_layout(self: Screen, message: Any) -> None:
        trace.log(f"Layout message from {type(message.widget).__name__}")
        await on_layout(self, message)

    Screen._on_layout = traced_on_layout  # type: ignore[method-assign]
    display = App._display

    def traced_display(self: App[Any], screen: Screen, renderable: Any) -> None:
        if trace.on and renderable is not None:
            trace.counts["paints"] += 1
        display(self, screen, renderable)

    App._display = traced_display  # type: ignore[method-assign]

    render_lines = Widget.render_lines

    def traced_lines(self: Widget, crop: Any) -> Any:
        lines = render_lines(self, crop)
        if trace.on:
            key = (id(self), self.region, crop)
            name = f"{type(self).__name__}#{self.id or ''}"
            if trace.last_lines.get(key) == lines:
                trace.same[name] += 1
            else:
                trace.changed[name] += 1
            trace.last_lines[key] = list(lines)
        return lines

    Widget.render_lines = traced_lines  # type: ignore[method-assign]


def report(trace: Trace, seconds: float) -> dict[str, Any]:
    def top(counter: collections.Counter[str], n: int = 25) -> list[tuple[str, float]]:
        return [(key, round(count / seconds, 2)) for key, count in counter.most_common(n)]

    return {
        "per_s": {k: round(v / seconds, 2) for k, v in sorted(trace.counts.items())},
        "layout_causes_per_s": top(trace.layout_causes),
        "layout_combos_per_s": top(trace.combos),
        "paint_causes_per_s": top(trace.paint_causes),
        "empty_paint_causes_per_s": top(trace.empty_causes),
        "refresh_calls_per_s": top(trace.refreshes, 40),
        "renders_same_per_s": top(trace.same),
        "renders_changed_per_s": top(trace.changed),
        "timeline": trace.timeline,
    }


async def measure(trace: Trace, seconds: float) -> dict[str, Any]:
    trace.reset()
    trace.on = True
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    trace.on = False
    wall = time.perf_counter() - wall0
    result = report(trace, wall)
    result["cpu_cores"] = round((time.process_time() - cpu0) / wall, 4)
    return result


async def run_child(idle: float, skip: float, window: float) -> dict[str, Any]:
    from birdie_tui.tui import create_app

    trace = Trace()
    install(trace)
    first = FirstToken()
    app = create_app([], cursor_blink=True)
    out: dict[str, Any] = {}
    async with app.run_test(size=(120, 40), message_hook=first) as pilot:
        await wait_ready(app)
        await asyncio.sleep(2.0)  # the boot's own work done
        out["idle"] = await measure(trace, idle)
        await send_prompt(app, pilot, first, skip)
        out["stream"] = await measure(trace, window)
        await app.main.turns.cancel()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--skip", type=float, default=3.0)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        print("RESULT " + json.dumps(asyncio.run(run_child(opts.idle, opts.skip, opts.window))))
        return
    result = run_reply(__file__, ["--idle", str(opts.idle), "--skip", str(opts.skip),
                                  "--window", str(opts.window)], tps=200, prefix="birdie-sources-")
    Path("/tmp/frame_sources_timeline.txt").write_text(
        "\n".join(result["stream"]["timeline"]))
    for phase, data in result.items():
        print(f"== {phase}: cpu {data['cpu_cores']} cores; per s: {data['per_s']}")
        for section in ("layout_causes_per_s", "layout_combos_per_s", "paint_causes_per_s", "empty_paint_causes_per_s",
                        "refresh_calls_per_s", "renders_same_per_s", "renders_changed_per_s"):
            print(f"-- {section}")
            for key, rate in data[section]:
                print(f"   {rate:7.2f}  {key}")


if __name__ == "__main__":
    main()
