"""Live reload latency: the real app, headless, its real watcher, real file writes.

For each of N edits the bench rewrites one SKILL.MD (a new description) and measures, from
just before the write:
  registry   until `engine.registry` holds the new version (the watcher saw it, the skills
             were re-parsed off the loop and swapped in)
  sidebar    until the frame after `#skills` got the new rows (`call_after_refresh` from the
             sidebar's `set_skills`), i.e. the repaint a user sees
Edits are spaced 150 ms apart (a human saves far less often), each to a different one of 10
skills so no two edits are grouped. Modes: the OS watcher (inotify) and forced polling.

    python bench/live_reload.py [--edits 50] [--mode inotify|polling|both] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SKILL = textwrap.dedent("""\
    ---
    name: {name}
    description: {description}
    ---

    ## Tools

    ### {tool}
    description: A tool.
    entrypoint: bash:true
    schema: {{type: object, properties: {{}}}}
    """)


def write_skill(root: Path, n: int, description: str) -> Path:
    path = root / f"skill{n}" / "SKILL.MD"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SKILL.format(name=f"Skill{n}", description=description, tool=f"tool{n}"))
    return path


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def run(mode: str, edits: int) -> dict:
    os.environ["BIRDIE_HOME"] = tempfile.mkdtemp(prefix="birdie-reload-")
    if mode == "polling":
        os.environ["BIRDIE_WATCH_POLLING"] = "1"
    else:
        os.environ.pop("BIRDIE_WATCH_POLLING", None)
    from birdie_tui.tui import create_app
    from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

    root = Path(tempfile.mkdtemp(prefix="birdie-skills-"))
    for n in range(10):
        write_skill(root, n, "version 0")
    app = create_app(["--skills-dir", str(root)], cursor_blink=False)
    painted: dict[str, float] = {}
    original = SkillSidebar.set_skills

    def timed_set_skills(self, rows, broken):
        original(self, rows, broken)
        descriptions = {r.description for r in rows}
        app.call_after_refresh(lambda: [painted.setdefault(d, time.perf_counter())
                                        for d in descriptions])

    SkillSidebar.set_skills = timed_set_skills  # type: ignore[method-assign]
    registry_ms: list[float] = []
    sidebar_ms: list[float] = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            while app.birdie is None or not app.ready.is_set():
                await pilot.pause(0.05)
            await asyncio.sleep(0.5)  # the watcher is in place
            for i in range(edits):
                n = i % 10
                description = f"edit {i}"
                start = time.perf_counter()
                write_skill(root, n, description)
                registry_at = None
                while time.perf_counter() - start < 10:
                    skill = app.birdie.engine.registry.get(f"Skill{n}")
                    if registry_at is None and skill is not None and \
                            skill.description == description:
                        registry_at = time.perf_counter()
                    if description in painted:
                        break
                    await asyncio.sleep(0.002)
                if registry_at is not None and description in painted:
                    registry_ms.append((registry_at - start) * 1000)
                    sidebar_ms.append((painted[description] - start) * 1000)
                await asyncio.sleep(0.15)
    finally:
        SkillSidebar.set_skills = original  # type: ignore[method-assign]
    return {
        "mode": mode, "edits": edits, "seen": len(sidebar_ms),
        "registry_p50": statistics.median(registry_ms), "registry_p95": pct(registry_ms, 0.95),
        "registry_max": max(registry_ms),
        "sidebar_p50": statistics.median(sidebar_ms), "sidebar_p95": pct(sidebar_ms, 0.95),
        "sidebar_max": max(sidebar_ms),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--mode", choices=["inotify", "polling", "both"], default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    modes = ["inotify", "polling"] if args.mode == "both" else [args.mode]
    results = [asyncio.run(run(mode, args.edits)) for mode in modes]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'mode':8} {'seen':>7}  {'registry p50/p95/max ms':>26}  {'sidebar p50/p95/max ms':>25}")
    for r in results:
        print(f"{r['mode']:8} {r['seen']:>3}/{r['edits']:<3}  "
              f"{r['registry_p50']:8.1f} {r['registry_p95']:7.1f} {r['registry_max']:7.1f}   "
              f"{r['sidebar_p50']:8.1f} {r['sidebar_p95']:7.1f} {r['sidebar_max']:7.1f}")


if __name__ == "__main__":
    main()
