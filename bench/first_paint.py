"""First paint: birdie-tui vs. a bare Textual app with similar widgets, measured in one run.

Each sample is a fresh interpreter (imports are the cost that matters), run headless at 120x40.
The child notes the time at its first line and reports the moment the first full frame has been
composited and turned into terminal output (a probe on `App._display`: the first non-empty
update, whose segments are rendered even though the headless driver would skip that step).

Why not "the first `pilot.pause()` returns": `pause()` waits until the *process* is idle for up to
1 s, and birdie-tui boots its engine in a thread right after mount, so `pause()` measures the
boot, not the paint. The child also fails loudly if the app raised (a crashing baseline once
looked "slow" instead of broken).

Reported per app: first frame (median, min, max) and, for birdie-tui, which heavy modules were
in `sys.modules` (a) once the app object was built — i.e. imported by the UI's own module
loading — and (b) at the first frame (the engine boot thread runs concurrently from on_mount).

    python bench/first_paint.py [--runs 15] [--no-boot]

`--no-boot` also samples birdie-tui with its engine boot worker stubbed out, to show how much
of the first frame is GIL contention with the boot thread's imports.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HEAVY = ("langgraph", "langchain_core", "pydantic", "openai", "anthropic", "mistralai", "mcp")

PROBE = r"""
import time; t0 = time.perf_counter()
import sys, json
from textual.app import App
HEAVY = %r
result = {}
_display = App._display
def _probe(self, screen, renderable):
    if renderable is not None and "ms" not in result and not self._batch_count:
        renderable.render_segments(self.console)  # the work a real terminal driver would do
        result["ms"] = (time.perf_counter() - t0) * 1000
        result["heavy_at_frame"] = [m for m in HEAVY if m in sys.modules]
        self.call_later(self.exit)
    return _display(self, screen, renderable)
App._display = _probe
""" % (HEAVY,)

RUN = r"""
result["heavy_at_build"] = [m for m in HEAVY if m in sys.modules]
app.run(headless=True, size=(120, 40))
if "ms" not in result or app.return_code not in (0, None):
    sys.exit("no first frame (return code %r)" % (app.return_code,))
print(json.dumps(result))
"""

BIRDIE = PROBE + r"""
from birdie_tui.tui import create_app
app = create_app([], cursor_blink=False)
""" + RUN

BIRDIE_NO_BOOT = PROBE + r"""
from birdie_tui.tui import create_app
from birdie_tui.tui.app import BirdieApp
BirdieApp.boot = lambda self: None
app = create_app([], cursor_blink=False)
""" + RUN

# The same layout as birdie-tui (birdie.tcss): status line, 30-column list, chat + input,
# 38-column tabbed panel, footer.
BARE = PROBE + r"""
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Markdown, OptionList, Sparkline, Static, TabbedContent, TabPane, TextArea
class Bare(App):
    CSS = '''
    #status { dock: top; height: 1; }
    #body { height: 1fr; }
    #skills { width: 30; height: 1fr; }
    #center { width: 1fr; }
    #chat { height: 1fr; }
    #composer { height: auto; min-height: 3; max-height: 10; margin: 0 1; }
    #hint { height: 1; }
    #panels { width: 38; }
    '''
    def compose(self):
        yield Static("status", id="status")
        with Horizontal(id="body"):
            yield OptionList(*[f"skill {i}" for i in range(7)], id="skills")
            with Vertical(id="center"):
                with VerticalScroll(id="chat"):
                    yield Markdown("**hello**")
                yield TextArea(id="composer")
                yield Static("", id="hint")
            with TabbedContent(id="panels"):
                with TabPane("Context"):
                    yield OptionList("a")
                with TabPane("Tokens"):
                    yield Sparkline([1, 2, 3])
        yield Footer()
    def on_mount(self):
        self.query_one(TextArea).focus()
app = Bare()
""" + RUN


def sample(code: str, home: str) -> dict:
    env = {**os.environ, "BIRDIE_HOME": home}
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "GEMINI_API_KEY",
                "LLM_VENDOR", "LLM_PROVIDER_CONFIG"):
        env.pop(key, None)
    # From the temporary home: `python -c` puts its working directory first on sys.path, so a
    # run from a source tree would measure that tree whatever PYTHONPATH says.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, cwd=home)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not line or "Traceback" in out.stderr:
        raise SystemExit(f"child failed (rc {out.returncode}):\n{out.stdout[-3000:]}\n"
                         f"{out.stderr[-3000:]}")
    return json.loads(line[-1])


def describe(name: str, values: list[float]) -> str:
    return (f"{name:<26} median {statistics.median(values):7.1f} ms  "
            f"(min {min(values):.1f}, max {max(values):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-boot", action="store_true",
                        help="also sample birdie-tui with the engine boot stubbed out")
    opts = parser.parse_args()
    home = tempfile.mkdtemp(prefix="birdie-bench-")
    variants = {"bare Textual app": BARE, "birdie-tui": BIRDIE}
    if opts.no_boot:
        variants["birdie-tui (boot stubbed)"] = BIRDIE_NO_BOOT
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from peers import compile_birdie_code

    compile_birdie_code()  # as installed: not compiled again in every child
    for code in variants.values():  # warm the file cache
        sample(code, home)
    times: dict[str, list[float]] = {name: [] for name in variants}
    at_build: set[str] = set()
    at_frame: set[str] = set()
    for _ in range(opts.runs):  # interleaved, so all see the same machine load
        for name, code in variants.items():
            result = sample(code, home)
            times[name].append(result["ms"])
            if name == "birdie-tui":
                at_build.update(result["heavy_at_build"])
                at_frame.update(result["heavy_at_frame"])
    print(f"runs: {opts.runs} (first composited frame, fresh interpreter, headless 120x40)")
    for name, values in times.items():
        print(describe(name, values))
    ratio = statistics.median(times["birdie-tui"]) / statistics.median(times["bare Textual app"])
    print(f"{'ratio':<26} {ratio:.2f}x  (target <= 1.3x)")
    print(f"heavy modules imported by the UI's module load: {sorted(at_build) or 'none'}")
    print(f"heavy modules present at first frame (boot thread): {sorted(at_frame) or 'none'}")


if __name__ == "__main__":
    main()
