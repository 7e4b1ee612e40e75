"""Run every benchmark in bench/ with modest run counts and write bench/RESULTS-latest.md.

Each bench runs as its own subprocess (with this interpreter), one after another, never two
at once, with a time limit. Its stdout goes into the report verbatim, with the command line
and the time it took; a bench that fails or times out is reported as such and the rest still
run. Benches that other work may add later (``sessions_scale.py``, ``engine_overhead.py``) are
run if their file exists, with ``--runs 3`` when their ``--help`` offers that flag; nothing is
imported from them.

The whole set is sized to stay well under 15 minutes on the 2-core machine (7 min measured):

    python bench/run_all.py                 # everything
    python bench/run_all.py --only first_paint,side_by_side
    python bench/run_all.py --list          # print the commands only

``bench/RESULTS.md`` is not touched: it is the curated record; this writes RESULTS-latest.md
(or ``--out``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

# (name, args, time limit in s). About 7 minutes in all on the 2-core machine (measured
# 7.0 min, side_by_side 4.4 of them).
PLAN: list[tuple[str, list[str], int]] = [
    ("first_paint", ["--runs", "9", "--no-boot"], 240),
    ("streaming", ["--runs", "3", "--variant", "both"], 300),
    ("live_reload", ["--edits", "30", "--mode", "both"], 180),
    ("mcp_overhead", ["--calls", "100", "--fresh-calls", "8"], 180),
    # 2 x 2 modes x 3 apps with a 5,000-token reply (25 s paced): ~4.5 min.
    ("side_by_side", ["--runs", "2", "--tokens", "5000", "--screens"], 600),
    # Written by others; run only if present (flags discovered from --help).
    ("sessions_scale", [], 300),
    ("engine_overhead", [], 300),
]
OPTIONAL = {"sessions_scale", "engine_overhead"}


def machine() -> dict[str, str]:
    info = {"cpus": str(os.cpu_count())}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / 2**20:.1f} GiB"
                break
    except OSError:
        pass
    info["os"] = platform.platform()
    info["python"] = f"{platform.python_version()} ({sys.executable})"
    try:
        import importlib.metadata as md

        info["textual"] = md.version("textual")
        info["birdie-tui"] = md.version("birdie-tui")
    except Exception:  # noqa: BLE001
        pass
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        if rev:
            info["commit"] = rev + (" (with uncommitted changes)" if dirty else "")
    except Exception:  # noqa: BLE001
        pass
    try:
        info["load average"] = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        pass
    return info


def optional_args(script: Path) -> list[str]:
    """Modest flags for a bench we did not write: ``--runs 3`` if it takes one."""
    try:
        help_text = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                                   text=True, timeout=60, cwd=ROOT).stdout
    except subprocess.TimeoutExpired:
        return []
    return ["--runs", "3"] if "--runs" in help_text else []


def run(name: str, args: list[str], limit: int) -> dict:
    script = BENCH / f"{name}.py"
    cmd = [sys.executable, str(script.relative_to(ROOT)), *args]
    shown = " ".join(["python", *cmd[1:]])
    print(f"== {shown}", flush=True)
    t = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, cwd=ROOT)
        out, err, code = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = (exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or ""))
        err += f"\n(timed out after {limit} s)"
        code = "timeout"
    wall = time.monotonic() - t
    print(f"   {wall:.0f} s, exit {code}", flush=True)
    return {"name": name, "cmd": shown, "wall": wall, "code": code, "out": out, "err": err}


def report(results: list[dict], info: dict[str, str], total: float, skipped: list[str]) -> str:
    now = dt.datetime.now().astimezone()
    lines = ["# Benchmark results — latest full run", "",
             f"Written by `bench/run_all.py` on {now:%Y-%m-%d %H:%M %Z}; the whole set took "
             f"{total / 60:.1f} min. Benches ran one at a time. This file is overwritten by every run; "
             "`bench/RESULTS.md` is the curated record.", "", "## Machine", ""]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += ["", "## Commands", ""]
    lines += [f"    {r['cmd']}" for r in results]
    for name in skipped:
        lines.append(f"    # {name}.py: not present, skipped")
    for r in results:
        status = "ok" if r["code"] == 0 else f"**failed** (exit {r['code']})"
        lines += ["", f"## {r['name']}", "", f"`{r['cmd']}` — {r['wall']:.0f} s, {status}", ""]
        out = r["out"].rstrip()
        lines += ["```", out if out else "(no output)", "```"]
        if r["code"] != 0 and r["err"].strip():
            tail = "\n".join(r["err"].rstrip().splitlines()[-25:])
            lines += ["", "stderr (last lines):", "", "```", tail, "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated bench names")
    ap.add_argument("--out", default=str(BENCH / "RESULTS-latest.md"))
    ap.add_argument("--list", action="store_true", help="print the commands and exit")
    opts = ap.parse_args()
    only = set(opts.only.split(",")) if opts.only else None

    plan, skipped = [], []
    for name, args, limit in PLAN:
        if only and name not in only:
            continue
        script = BENCH / f"{name}.py"
        if not script.exists():
            skipped.append(name)
            continue
        if name in OPTIONAL and not args:
            args = optional_args(script)
        plan.append((name, args, limit))
    if opts.list:
        for name, args, limit in plan:
            print(" ".join(["python", f"bench/{name}.py", *args]), f"  # limit {limit} s")
        for name in skipped:
            print(f"# {name}.py not present")
        return

    info = machine()
    t = time.monotonic()
    results = [run(name, args, limit) for name, args, limit in plan]
    total = time.monotonic() - t
    Path(opts.out).write_text(report(results, info, total, skipped))
    print(f"wrote {opts.out} ({total / 60:.1f} min)")


if __name__ == "__main__":
    main()
