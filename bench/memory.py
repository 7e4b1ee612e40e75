"""Memory, and start -> first answer, of birdie-tui with the offline model, in tmux.

Each tmux run starts the app in a fresh detached tmux session (120x40, private socket, see
``terminal.py``) with ``env -i``, fresh temporary HOME and BIRDIE_HOME, ``BIRDIE_WATCH=0``, no
vendor key. First paint = "Quit" in the footer; idle = the process tree used < 30 ms CPU in the
last second; RSS = VmRSS summed over the tree. Pythons use ``PYTHONPYCACHEPREFIX`` (under
``~/.cache/birdie-tui-bench``, warmed by an untimed run): compiled bytecode, as a wheel install
has; ``--bytecode as-is``: ``PYTHONDONTWRITEBYTECODE=1``, stale .pyc compiled at every start.

- **idle**: launch -> first paint -> idle: RSS; then glibc ``malloc_trim(0)`` (``LAUNCHER``: the
  entry point plus a SIGUSR1 handler) and the RSS it returned.
- **turn**: through ``LAUNCHER``: one answered turn (as **answer**), then idle: RSS of the tree,
  and what ``malloc_trim(0)`` still returns then.
- **answer**: type the prompt at first paint (``send-keys -l``; queued until Birdie is up), Enter
  once shown -> the offline reply's first words on screen. **trace**: the same through
  ``LAUNCHER`` with ``BENCH_TRACE_FILE``: the time of each boot step.
- **big**: ``--pairs`` user/assistant pairs (user 1-3 sentences; assistant 3-5 Markdown paragraphs,
  some lists and code fences; every 20th pair a tool call + result) written through the engine
  (``persist_session``, one ``aupdate_state``, ``record_turn`` per pair), seen by ``sessions
  list``; ``--session-id SID``: launch -> last reply on screen; PageUp (each once the screen moved)
  to "earlier messages hidden" (the chat keeps 300 widgets; Home/End are the composer's), PageDown
  back, RSS polled every 100 ms; RSS once idle; malloc_trim.
- **breakdown**: fresh processes per cumulative import stage; ``-X importtime`` by package.

    python bench/memory.py [--runs 3] [--pairs 1000] [--bytecode warm|as-is] [--only MODES,...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers import base_env, birdie_code_env, cache_root  # noqa: E402
from side_by_side import _idle_wait  # noqa: E402
from terminal import Terminal  # noqa: E402

EXE = Path(sys.executable).with_name("birdie-tui")  # run the bench with the app's venv Python
PY = str(EXE.with_name("python"))
USER, MIB = "bench", 2**20
PROMPT = "Which three things should I pack for a rainy weekend in Porto?"
ANSWER = "no network and no API key"  # the offline reply's first line
PYCACHE: str | None = None  # PYTHONPYCACHEPREFIX for every Python started (None: as-is)
LAUNCHER = r"""import gc, inspect, os, signal, sys, time
def mark(name, log=open(os.environ.get("BENCH_TRACE_FILE") or os.devnull, "w", buffering=1)):
    log.write(f"{time.monotonic():.6f} {name}\n")
def trim(signum, frame):
    rss = lambda: open("/proc/self/status").read().split("VmRSS:")[1].split()[0]
    before = rss(); __import__("ctypes").CDLL("libc.so.6").malloc_trim(0)
    open(os.environ["BENCH_TRIM_FILE"], "w").write(f"{before} {rss()}\n")
def traced(owner, name, label, before=None):  # mark the end (and start) of the first call
    orig, seen = getattr(owner, name), []
    note = lambda out: (seen or mark(label) or seen.append(1), out)[1]
    async def awrapper(*a, **k): return note(await orig(*a, **k))
    def wrapper(*a, **k): _ = before and not seen and mark(before); return note(orig(*a, **k))
    setattr(owner, name, awrapper if inspect.iscoroutinefunction(orig) else wrapper)
def trace():
    import birdie_tui.service as S, birdie_tui.tui.app as A
    from birdie_tui.tui.turn_view import TurnView
    mark("TUI imported")
    def local_birdie(_lb=S.local_birdie, **kw):
        mark("boot starts (engine import begins, in a thread)")
        import birdie_tui.service.local as L
        def make_engine(*a, _me=L.make_engine, **k):
            mark("engine imported"); engine = _me(*a, **k)
            traced(engine, "start", "engine started (skills, model, checkpointer)"); return engine
        L.make_engine = make_engine
        traced(L, "open_first", "session opened")
        return _lb(**kw)
    S.local_birdie = local_birdie
    A.gc = type("GC", (), {"__getattr__": lambda _, name: getattr(gc, name)})()
    traced(A.gc, "collect", "gc.collect done", before="gc.collect starts")
    traced(A.MainScreen, "start_turn", "turn started")
    traced(TurnView, "on_token", "first token handled by the UI")
_ = os.environ.get("BENCH_TRIM_FILE") and signal.signal(signal.SIGUSR1, trim)
_ = os.environ.get("BENCH_TRACE_FILE") and (mark("python started"), trace())
from birdie_tui.cli import main
sys.exit(main())
"""
STAGES = """bare python:
textual.app: textual.app
birdie_tui.tui.app: birdie_tui.tui.app
pydantic: pydantic
langsmith: langsmith langsmith.run_trees
langchain_core (messages, chat models): langchain_core.messages langchain_core.language_models
langgraph (graph, prebuilt): langgraph.graph langgraph.prebuilt
aiosqlite + sqlite saver: aiosqlite langgraph.checkpoint.sqlite.aio
birdie_tui.agent.engine: birdie_tui.agent.engine
offline model: birdie_tui.providers.offline"""  # each stage imports these on top of those above


def app_env(home: Path, **extra: str) -> dict[str, str]:
    (home / "birdie").mkdir(parents=True, exist_ok=True)
    env = (base_env(home) | {"BIRDIE_HOME": str(home / "birdie"), "BIRDIE_WATCH": "0"}
           | birdie_code_env() | extra)
    if PYCACHE:
        del env["PYTHONDONTWRITEBYTECODE"]
        env["PYTHONPYCACHEPREFIX"] = PYCACHE
    return env


def _wait(term: Terminal, text: str, timeout: float = 60.0, poll: float = 0.015) -> float:
    if (hit := term.wait_for(lambda s: text in s, timeout, poll)) is None:
        raise RuntimeError(f"{text!r} never showed; screen: {' '.join(term.capture().split())}")
    return hit[0]


def _start(term: Terminal, home: Path, args: list[str], **hooks: str) -> tuple[float, float]:
    """Launch (through LAUNCHER when ``hooks`` set its env vars); (launch, first paint)."""
    (home / "launcher.py").write_text(LAUNCHER)  # a file: tmux control mode reads line by line
    argv = [PY, str(home / "launcher.py"), *args] if hooks else [str(EXE), *args]
    t0 = term.launch(argv, app_env(home, **hooks), str(home))
    return t0, _wait(term, "Quit")


def _trim(term: Terminal, path: Path, prefix: str) -> dict:
    """Signal LAUNCHER's malloc_trim(0) and read back the RSS it returned."""
    os.kill(term.pid, signal.SIGUSR1)
    for _ in range(250):
        if path.exists() and path.read_text().endswith("\n"):
            break
        time.sleep(0.02)
    before, after = (int(x) / 1024 for x in path.read_text().split())
    return {f"{prefix}trim_freed": before - after}


def run_idle(home: Path) -> dict:
    with Terminal() as term:
        t0, fp = _start(term, home, [], BENCH_TRIM_FILE=str(home / "trim"))
        idle_at, _ = _idle_wait(term, t0, fp + 1.0, cap=30.0)
        res = {"first_paint": fp - t0, "idle_at": idle_at - t0, "procs": len(term.tree()),
               "rss_idle": term.tree_rss() / MIB}
        return {**res, **_trim(term, home / "trim", "")}


def run_turn(home: Path) -> dict:
    with Terminal() as term:
        t0, fp = _start(term, home, [], BENCH_TRIM_FILE=str(home / "trim"))
        term.send_text(PROMPT)
        _wait(term, PROMPT, 10)
        term.send_keys("Enter")
        shown = _wait(term, ANSWER)
        _idle_wait(term, shown, shown + 1.0, cap=30.0)
        res = {"first_token": shown - t0, "rss_turn_idle": term.tree_rss() / MIB}
        return {**res, **_trim(term, home / "trim", "turn_")}


def run_answer(home: Path, trace: bool = False) -> dict:
    with Terminal() as term:
        t0, fp = _start(term, home, [], **({"BENCH_TRACE_FILE": str(home / "t")} if trace else {}))
        term.send_text(PROMPT)
        _wait(term, PROMPT, 10)
        term.send_keys("Enter")
        shown = _wait(term, ANSWER)
        res = {"first_paint": fp - t0, "first_token": shown - t0, "rss": term.tree_rss() / MIB}
    if trace:
        marks = [ln.split(" ", 1) for ln in (home / "t").read_text().splitlines()]
        res["marks"] = {name: float(t) - t0 for t, name in marks}
        res["marks"].update({"first paint (tmux)": fp - t0, "answer on screen (tmux)": shown - t0})
    return res


def _scroll(term: Terminal, key: str, until: str, cap: int = 600) -> tuple[int, bool]:
    """Press ``key``, each time once the screen moved (at most 2 s), until ``until`` shows."""
    presses, screen = 0, term.capture()
    while until not in screen and presses < cap:
        term.send_keys(key)
        presses += 1
        hit = term.wait_for(lambda s, old=screen: s != old, 2.0, 0.01)
        screen = hit[1] if hit else term.capture()
    return presses, until in screen


def run_big(home: Path, sid: str, last: str) -> dict:
    trim, samples, stop = home / f"trim-{time.monotonic()}", [], threading.Event()
    with Terminal() as term:
        t0, _ = _start(term, home, ["--user", USER, "--session-id", sid],
                       BENCH_TRIM_FILE=str(trim))
        seen = _wait(term, last, poll=0.05)
        res = {"open": seen - t0, "rss_open": term.tree_rss() / MIB}
        _idle_wait(term, seen, seen + 1.0, cap=30.0)
        res["rss_open_idle"] = term.tree_rss() / MIB
        poll = lambda: [samples.append(term.tree_rss()) for _ in iter(lambda: stop.wait(0.1), True)]
        (thread := threading.Thread(target=poll, daemon=True)).start()
        t_up = time.monotonic()
        res["up_presses"], res["reached_top"] = _scroll(term, "PageUp", "earlier messages hidden")
        res["page_ms"] = 1000 * (time.monotonic() - t_up) / max(1, res["up_presses"])
        res["down_presses"], res["back_down"] = _scroll(term, "PageDown", last)
        stop.set()
        thread.join()
        res["rss_scroll_max"] = max(samples, default=0) / MIB
        _idle_wait(term, time.monotonic(), time.monotonic() + 1.0, cap=30.0)
        res["rss_after_scroll"] = term.tree_rss() / MIB
        return {**res, **_trim(term, trim, "big_")}


WORDS = ("the parser config cache request handler module test value list file path option error "
         "retry queue token session index buffer worker thread schema field record batch").split()


def _sentence(rnd: random.Random) -> str:
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(6, 18))]
    words.insert(2, rnd.choice(["checks", "returns", "keeps", "splits", "reads", "writes"]))
    return " ".join(words).capitalize() + "."


def _reply(rnd: random.Random, n: int) -> str:
    lines = lambda k, each: "\n".join(each(i) for i in range(rnd.randint(*k)))  # noqa: E731
    parts = [lines((3, 5), lambda _: _sentence(rnd)).replace("\n", " ")
             for _ in range(rnd.randint(3, 5))]
    if rnd.random() < 0.3:
        parts.insert(1, lines((3, 5), lambda _: f"- **{rnd.choice(WORDS)}**: {_sentence(rnd)}"))
    if rnd.random() < 0.2:
        body = lines((4, 12), lambda i: f"    {rnd.choice(WORDS)}_{i} = get('{rnd.choice(WORDS)}')")
        parts.insert(-1, f"```python\ndef step_{n}():\n{body}\n```")
    return "\n\n".join(parts) + f"\n\n(Note {n:04d}.)"


def conversation(pairs: int, seed: int = 12) -> tuple[list, list[str]]:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    rnd, msgs, asks = random.Random(seed), [], []
    for n in range(1, pairs + 1):
        asks.append(" ".join(_sentence(rnd) for _ in range(rnd.randint(1, 3))))
        msgs.append(HumanMessage(content=asks[-1]))
        if n % 20 == 0:
            call = {"name": "list_files", "args": {"path": "src"}, "id": f"call_{n}"}
            files = "\n".join(f"src/{rnd.choice(WORDS)}_{i}.py" for i in range(rnd.randint(8, 30)))
            msgs += [AIMessage(content="", tool_calls=[call]),
                     ToolMessage(content=files, tool_call_id=f"call_{n}", name="list_files")]
        text = _reply(rnd, n)
        used = {"input_tokens": 400 + 30 * n, "output_tokens": len(text) // 4}
        msgs.append(AIMessage(content=text,
                              usage_metadata={**used, "total_tokens": sum(used.values())}))
    return msgs, asks


async def _write_session(env: dict[str, str], pairs: int) -> tuple[str, int]:
    from birdie_tui.agent.accounting import record_turn
    from birdie_tui.agent.engine import Engine, EngineOptions

    engine = Engine(EngineOptions(user=USER, environ=env))
    await engine.start()
    try:
        await engine.open_session(None)
        meta = engine.persist_session()
        msgs, asks = conversation(pairs)
        await engine.host.graph.aupdate_state(engine.history.config(), {"messages": msgs}, as_node="agent")
        for ask, msg in zip(asks, [m for m in msgs if m.type == "ai" and m.content]):
            used = msg.usage_metadata
            record_turn(engine.sessions, meta, ask, used["input_tokens"], used["output_tokens"])
        return meta.id, len(msgs)
    finally:
        await engine.aclose()


def make_big(home: Path, pairs: int) -> dict:
    env, t = app_env(home), time.monotonic()
    sid, count = asyncio.run(_write_session(env, pairs))
    listing = _run([str(EXE), "sessions", "list", "--user", USER], env)
    db = home / "birdie" / "sessions" / USER / "checkpoints.db"
    return {"sid": sid, "messages": count, "write_s": time.monotonic() - t, "home": str(home),
            "list_line": next((ln for ln in listing.splitlines() if sid in ln), "(not listed)"),
            "db_mib": db.stat().st_size / MIB, "last": f"(Note {pairs:04d}.)"}


STAGE_CODE = """import importlib, sys, time, tracemalloc
_ = sys.argv[1] == "traced" and tracemalloc.start(); t = time.perf_counter()
[importlib.import_module(m) for m in sys.argv[2:]]
rss = open("/proc/self/status").read().split("VmRSS:")[1].split()[0]
print(time.perf_counter() - t, rss, tracemalloc.get_traced_memory()[0])
"""


def _run(argv: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip()[-500:])
    return proc.stdout + proc.stderr


def breakdown(env: dict[str, str], runs: int) -> list[tuple[str, float, float, float]]:
    """Per cumulative stage: (label, VmRSS MiB, tracemalloc MiB, import s), medians of runs."""
    rows, mods = [], []
    for label, more in (line.split(":") for line in STAGES.splitlines()):
        mods += more.split()
        got = [_run([PY, "-c", STAGE_CODE, "plain", *mods], env).split() for _ in range(runs)]
        secs, rss = (statistics.median(float(g[i]) for g in got) for i in (0, 1))
        traced = int(_run([PY, "-c", STAGE_CODE, "traced", *mods], env).split()[2]) / MIB
        rows.append((label, rss / 1024, traced, secs))
    return rows


def importtime(env: dict[str, str], top: int = 12) -> tuple[float, list[tuple[str, float]]]:
    """Self time of the engine's imports after the TUI's, summed by top-level package (ms)."""
    code = ("import sys, birdie_tui.tui.app; print('MARK', file=sys.stderr, flush=True); "
            "import birdie_tui.agent.engine, birdie_tui.providers.offline")
    per: dict[str, float] = {}
    err = _run([PY, "-X", "importtime", "-c", code], env)
    for line in err.split("MARK", 1)[-1].splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            us, _, name = (x.strip() for x in line[12:].split("|"))
            per[name.split(".")[0]] = per.get(name.split(".")[0], 0.0) + int(us) / 1000
    return sum(per.values()), sorted(per.items(), key=lambda kv: -kv[1])[:top]


ROWS = """idle first_paint s launch -> first paint
idle rss_idle MiB **idle RSS** (process tree)
idle trim_freed MiB malloc_trim(0) in the idle app: RSS it returned
turn rss_turn_idle MiB **idle RSS after one turn** (process tree)
turn turn_trim_freed MiB malloc_trim(0) idle after that turn: RSS it returned
answer first_token s **launch -> first answer token on screen**
big open s big session: launch -> last reply on screen
big rss_open_idle MiB big session: RSS once idle
big page_ms ms big session: one PageUp -> screen moved
big rss_scroll_max MiB **big session: max RSS while scrolling up and back**
big rss_after_scroll MiB big session: RSS idle after scrolling
big big_trim_freed MiB big session: malloc_trim(0) after scrolling: RSS it returned"""


def _cell(vals: list[float], unit: str) -> str:
    fmt = {"MiB": ".1f", "ms": ".0f"}.get(unit, ".2f")
    return f"**{statistics.median(vals):{fmt}}** ({min(vals):{fmt}}–{max(vals):{fmt}})"


def report(results: list[dict], rows: list, imports: tuple | None, big: dict | None) -> str:
    out = ["| metric | median (min–max) |", "|---|---|"]
    for mode, key, unit, label in (row.split(" ", 3) for row in ROWS.splitlines()):
        vals = [r[key] for r in results if r["mode"] == mode and key in r]
        out += [f"| {label} ({unit}) | {_cell(vals, unit)} |"] if vals else []
    traces = [r["marks"] for r in results if "marks" in r]
    if traces:
        out += ["", "| traced run: step | s since launch |", "|---|---|"]
        out += [f"| {name} | {_cell([m[name] for m in traces if name in m], 's')} |"
                for name in sorted(traces[0], key=traces[0].get)]
    if rows:
        out += ["", "| import stage (cumulative) | VmRSS MiB | + MiB | tracemalloc MiB | s |",
                "|---|---|---|---|---|"]
        out += [f"| {label} | {rss:.1f} | {rss - prev[1]:+.1f} | {traced:.1f} | {secs:.3f} |"
                for prev, (label, rss, traced, secs) in zip([rows[0]] + rows, rows)]
    if imports:
        out.append(f"\n`-X importtime`, engine + offline model after the TUI: {imports[0]:.0f} ms "
                   "self; by package (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in imports[1]))
    if big:
        out.append(f"\nBig session: {big['messages']} messages, written in {big['write_s']:.1f} s, "
                   f"checkpoints.db {big['db_mib']:.1f} MiB; `sessions list`: {big['list_line']!r}")
    return "\n".join(out)


def run_mode(mode: str, big: dict | None) -> dict:
    home = Path(tempfile.mkdtemp(prefix=f"mem-{mode}-"))
    runs = {"idle": run_idle, "turn": run_turn, "answer": run_answer, "trace": lambda h: run_answer(h, trace=True),
            "big": lambda h: run_big(Path(big["home"]), big["sid"], big["last"])}
    try:
        return runs[mode](home)
    except Exception as exc:  # noqa: BLE001 - one broken run must not end the bench
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run_all(runs: int, only: list[str], big: dict | None) -> list[dict]:
    results: list[dict] = []
    for i in range(runs):
        for mode in [m for m in ("idle", "turn", "answer", "trace", "big") if m in only]:
            load, t = os.getloadavg()[0], time.monotonic()
            r = {"mode": mode, "run": i, "loadavg": load, **run_mode(mode, big)}
            results.append(r)
            print(f"[{i + 1}/{runs}] {mode:6} {time.monotonic() - t:5.1f}s load {load:.2f} " + (
                f"FAILED: {r['error']}" if "error" in r else ", ".join(
                    f"{k}={v:.3f}" for k, v in list(r.items())[3:] if isinstance(v, float))))
    return results


def main() -> None:
    global PYCACHE
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--only", default="idle,answer,trace,big,breakdown")
    ap.add_argument("--bytecode", choices=("warm", "as-is"), default="warm")
    opts = ap.parse_args()
    only, started, load0 = opts.only.split(","), time.monotonic(), os.getloadavg()
    root = Path(tempfile.mkdtemp(prefix="mem-bench-"))
    try:
        if opts.bytecode == "warm":
            PYCACHE = str(cache_root() / f"pycache-{sys.version_info[0]}{sys.version_info[1]}")
            run_mode("answer", None)  # untimed: fills the bytecode cache
        big = make_big(root / "big", opts.pairs) if "big" in only else None
        results = run_all(opts.runs, only, big)
        env = app_env(root)
        rows = breakdown(env, opts.runs) if "breakdown" in only else []
        imports = importtime(env) if "breakdown" in only else None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    load = " ".join(f"{x:.2f}" for x in load0 + os.getloadavg())
    print(f"\nTotal {(time.monotonic() - started) / 60:.1f} min; bytecode {opts.bytecode}; load "
          f"average (1, 5, 15 min) at start and end: {load}; {os.cpu_count()} CPUs.")
    print(f"\nMedians (min–max) of {opts.runs} runs.\n\n" + report(results, rows, imports, big))


if __name__ == "__main__":
    main()
