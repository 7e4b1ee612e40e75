"""The scheduler at rest: `birdie-tui agents start` with triggers that do not fire, measured
idle against a Python process that only sleeps.

The scheduler gets `--cron` agents whose `cron:` fires once a year (never during the bench)
and `--watch` agents each watching a small folder of its own (nothing is written there). Once
it has printed its start line, the bench reads its CPU time (utime + stime of every thread,
/proc/PID/stat), its wake-ups (context switches of every thread, /proc/PID/task/*/status) and
its resident memory, waits `--seconds`, and reads them again; then SIGTERM, and `os.wait4`
gives the whole life's CPU and peak RSS. The baseline is `python -c "import time;
time.sleep(N)"` measured the same way.

    PYTHONPATH=<tree> python bench/scheduler_idle.py [--seconds 60] [--cron 20] [--watch 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """utime + stime of the process (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def switches(pid: int) -> int:
    """Context switches of every thread: how often the process woke up."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            for line in status.read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
        except OSError:  # a thread ended meanwhile
            continue
    return total


def status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def measure(proc: subprocess.Popen[str], seconds: float) -> dict[str, Any]:
    """Idle figures over `seconds`, then SIGTERM and the whole life's rusage."""
    pid = proc.pid
    cpu0, sw0, t0 = cpu_s(pid), switches(pid), time.monotonic()
    time.sleep(seconds)
    cpu1, sw1, t1 = cpu_s(pid), switches(pid), time.monotonic()
    rss_kb, threads = status_kb(pid, "VmRSS"), status_kb(pid, "Threads")
    os.kill(pid, signal.SIGTERM)
    _, status, usage = os.wait4(pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    span = t1 - t0
    return {"idle_s": round(span, 1), "idle_cpu_ms": round((cpu1 - cpu0) * 1000, 1),
            "idle_cpu_pct": round((cpu1 - cpu0) / span * 100, 3),
            "wakeups_per_s": round((sw1 - sw0) / span, 1), "threads": threads,
            "rss_mb": round(rss_kb / 1024, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "life_cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "exit": proc.returncode}


def write_agents(root: Path, crons: int, watches: int) -> Path:
    agents = root / "agents"
    for n in range(crons):
        _agent(agents, f"yearly{n}", f"cron: \"{n % 60} 3 1 1 *\"")
    for n in range(watches):
        folder = root / "watched" / f"w{n}"
        folder.mkdir(parents=True)
        for k in range(10):
            (folder / f"note{k}.md").write_text("a note\n")
        _agent(agents, f"watcher{n}", f"watch: {folder}/*.md")
    return agents


def _agent(agents: Path, name: str, trigger: str) -> None:
    path = agents / name / "AGENT.MD"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: Idle bench.\n{trigger}\n---\n"
                    "## Prompt\nSay hello.\n")


def scheduler(seconds: float, crons: int, watches: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agents = write_agents(root, crons, watches)
        env = {**os.environ, "BIRDIE_HOME": str(root / "home"),
               "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
        env.pop("BIRDIE_DATABASE_URL", None)
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "birdie_tui.cli", "agents", "start",
                                 "--agents-dir", str(agents)], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        first = ""
        for line in proc.stdout:
            if "scheduler started" in line:
                first = line
                break
        if not first:
            raise SystemExit(f"the scheduler did not start (exit {proc.wait()})")
        ready = time.monotonic() - started
        time.sleep(2)  # let start-up's last work (imports, the watcher's first scan) end
        result = measure(proc, seconds)
        result["ready_s"] = round(ready, 2)
        result["triggers"] = crons + watches
        return result


def baseline(seconds: float) -> dict[str, Any]:
    proc = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds + 30})"],
                            text=True)
    time.sleep(1)
    return measure(proc, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--cron", type=int, default=20)
    parser.add_argument("--watch", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {"scheduler": scheduler(args.seconds, args.cron, args.watch),
               "baseline": baseline(args.seconds), "load_avg": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"idle {args.seconds:g}s, {args.cron} cron + {args.watch} watch triggers, "
          f"load {results['load_avg']:.1f}")
    keys = ("idle_cpu_ms", "idle_cpu_pct", "wakeups_per_s", "threads", "rss_mb",
            "peak_rss_mb", "life_cpu_s", "exit")
    print(f"{'':<14}" + "".join(f"{k:>14}" for k in keys))
    for name in ("scheduler", "baseline"):
        print(f"{name:<14}" + "".join(f"{results[name][k]!s:>14}" for k in keys))
    print(f"scheduler ready in {results['scheduler']['ready_s']}s")


if __name__ == "__main__":
    main()
