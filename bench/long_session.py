"""Opening a long session: time to interactive with 2,500 user/assistant pairs.

The session is built once, in-process, with the real engine API and the offline model, in a
temporary BIRDIE_HOME (user ``bench``): one real turn (so the engine gives a real provenance
record, ``engine.last_call``), then the whole history written into the checkpoint with
``engine.host.graph.aupdate_state(config, {"messages": replace_all(history)}, as_node="agent")``.
The history: ``--pairs`` (2,500) user questions and Markdown replies of a few paragraphs (lists,
inline code, now and then a heading or a code block); every ``--tool-every`` (20th) pair the
reply first calls ``list_files`` and gets a 12-line result. The last reply ends with
``ZZLASTREPLY``. Every AI message carries a provenance record where the engine keeps it,
``response_metadata["birdie_context"]`` (``provenance.RECORD_KEY``): the real turn's record,
renumbered to the message's turn and call, stored as the engine stores it
(``CallContext.to_dict(stored=True)``), as a session that long would have; ``--no-records``
puts one on the last AI message only. The session file says 2,500 turns; ``birdie-tui sessions
list`` is checked to list it. A second, small session (2 pairs, last reply ending
``ZZSMALLEND``) is made for the browser case.

Every run copies that home afresh and measures, in a real terminal (``terminal.Terminal``: tmux on
a private socket, 120x40; birdie-tui started as ``env -i`` with a temp HOME, BIRDIE_HOME,
BIRDIE_WATCH=0, no API key: the offline model), polling the screen every 15 ms:

  open     ``birdie-tui --session-id SID``: (a) first paint ("Quit" in the footer); a marker word
           typed (send-keys -l) right at first paint, and the time it shows in the composer;
           (b) the last reply's ``ZZLASTREPLY`` on screen; (c) a second marker typed right
           after (b): the time it shows; (d) Enter 0.1 s later: Enter -> the offline answer
           ("Your message:" after the quoted message) on screen; how long the app stays busy
           after it (CPU quiet over 0.5 s, sampled every 0.1 s); then turns 2 and 3 the same
           way, each once the app is idle (turn 2 is the first that may auto-compact: the
           first turn's record says the history budget dropped messages). Times from launch
           unless said otherwise.
  browser  ``birdie-tui --session-id SMALL`` (its launch -> last reply is the reference for
           (b)), wait until idle; ctrl+s, type the long session's id, Enter 0.4 s later:
           Enter -> ``ZZLASTREPLY`` on screen.
  door     headless, in this process (imports done before): ``local_birdie(...).start(
           session_id=SID)``, then ``transcript()``, ``contexts()``, ``injection()``, and
           three turns through ``send()`` consumed to the end (the engine's share of a turn).

    python bench/long_session.py [--runs 3] [--pairs 2500] [--tool-every 20] [--no-records]
                                 [--json out.json]

Reported: medians (min–max) over the runs, as a Markdown table at the end, plus the session's
size (messages, records, latest checkpoint blob).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from peers import base_env  # noqa: E402
from terminal import Terminal  # noqa: E402

LAST, SMALL_END, ANSWER = "ZZLASTREPLY", "ZZSMALLEND", "Your message:"
MARK1, MARK2 = "zqearlymark", "zqlatemark"
EXE = Path(sys.executable).with_name("birdie-tui")

_TOPICS = ("the retry policy", "the cache layer", "log rotation", "the CSV importer",
           "the deploy script", "unit tests for the parser", "the config loader",
           "rate limits", "the sqlite schema", "error messages")
_SENTENCES = (
    "The short answer is that {t} already does most of this; the missing part is the error path.",
    "I would start by reading `{f}` and checking how it handles an empty input.",
    "If you change the default, keep the old behaviour behind a flag for one release.",
    "Most of the time goes into parsing, so caching the parsed form pays off quickly.",
    "Be careful with the timeout: a value under a second makes the test flaky on a busy CI.",
    "There is no need for a new dependency here; the standard library covers it.",
    "Write the test first, watch it fail, then make the smallest change that passes.",
    "The log line should say what was skipped and why, in one sentence a user can act on.",
)


def reply_text(k: int) -> str:
    """A Markdown reply of a few paragraphs, different for every pair."""
    topic, path = _TOPICS[k % len(_TOPICS)], f"src/module_{k % 37}.py"
    say = [s.format(t=topic, f=path) for s in _SENTENCES]
    parts = [f"### About {topic}"] if k % 7 == 0 else []
    parts.append(f"{say[k % 8]} {say[(k + 3) % 8]} {say[(k + 5) % 8]}")
    parts.append("\n".join(f"- **Step {n + 1}:** {say[(k + n) % 8]}" for n in range(3)))
    if k % 5 == 0:
        parts.append(f"```python\ndef handle_{k}(value):\n    return value or None\n```")
    parts.append(f"{say[(k + 1) % 8]} {say[(k + 6) % 8]} That should settle pair {k}.")
    return "\n\n".join(parts)


def build_history(pairs: int, tool_every: int, end_word: str = LAST) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    out: list[Any] = []
    for k in range(pairs):
        topic = _TOPICS[k % len(_TOPICS)]
        out.append(HumanMessage(f"Question {k}: how should I deal with {topic} in this repo?"))
        if tool_every and k % tool_every == tool_every - 1:
            call = {"name": "list_files", "args": {"path": f"src/pkg{k}"}, "id": f"call_{k}"}
            out.append(AIMessage("", tool_calls=[call]))
            listing = "\n".join(f"src/pkg{k}/file_{n}.py" for n in range(12))
            out.append(ToolMessage(listing, tool_call_id=f"call_{k}", name="list_files"))
        text = reply_text(k)
        out.append(AIMessage(text + (f" {end_word}." if k == pairs - 1 else "")))
    return out


def attach_records(history: list[Any], template: Any, every: bool) -> int:
    """Put a provenance record (the real turn's `CallContext`, renumbered) on each AI message
    (`every`) or on the last one only, as the engine's `with_record` does; how many."""
    from dataclasses import replace

    from birdie_tui.agent.provenance import RECORD_KEY

    turn, call, placed = 0, 0, []
    for msg in history:
        if msg.type == "human":
            turn, call = turn + 1, 0
        elif msg.type == "ai":
            call += 1
            placed.append((msg, turn, call))
    for msg, turn, call in placed if every else placed[-1:]:
        record = replace(template, turn=turn, call=call, message_id="")
        msg.response_metadata = {**msg.response_metadata,
                                 RECORD_KEY: record.stored()}
    return len(placed) if every else min(1, len(placed))


async def make_session(env: dict[str, str], history: list[Any], records: bool,
                       turns: int) -> str:
    import uuid

    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.agent.graph import replace_all
    from birdie_tui.providers.config import ProviderConfig

    for msg in history:
        msg.id = msg.id or str(uuid.uuid4())
    engine = Engine(EngineOptions(provider=ProviderConfig(vendor="offline"), environ=env))
    await engine.start()
    try:
        await engine.open_session()
        async for _ in engine.run_turn("hello"):  # saves the session; gives a real record
            pass
        attach_records(history, engine.last_call, records)
        await engine.host.graph.aupdate_state(engine.history.config(), {"messages": replace_all(history)},
                                          as_node="agent")
        meta = engine.persist_session()
        meta.turns = turns
        engine.sessions.save(meta)
        return meta.id
    finally:
        await engine.aclose()


def session_facts(home: Path, sid: str) -> dict[str, Any]:
    from birdie_tui.store import BirdiePaths

    db = BirdiePaths.from_env(app_env(home)).checkpoints_db("bench")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        blob = conn.execute("SELECT length(checkpoint) FROM checkpoints WHERE thread_id = ? "
                            "ORDER BY checkpoint_id DESC LIMIT 1", (sid,)).fetchone()[0]
    return {"checkpoint blob (bytes)": blob}


def app_env(home: Path) -> dict[str, str]:
    return base_env(home) | {"BIRDIE_HOME": str(home / "birdie"), "BIRDIE_WATCH": "0",
                             "USER": "bench"}


def build(template: Path, opts: argparse.Namespace) -> dict[str, Any]:
    """The long and the small session in `template` (a HOME); their ids and facts."""
    from birdie_tui.agent.provenance import RECORD_KEY

    env = app_env(template)
    (template / "work").mkdir(parents=True, exist_ok=True)
    history = build_history(opts.pairs, opts.tool_every)
    t0 = time.perf_counter()
    sid = asyncio.run(make_session(env, history, opts.records, opts.pairs))
    built = time.perf_counter() - t0
    small = asyncio.run(make_session(env, build_history(2, 0, SMALL_END), opts.records, 2))
    listed = subprocess.run([str(EXE), "sessions", "list"], env=env, capture_output=True,
                            text=True).stdout
    if sid not in listed or small not in listed:
        raise SystemExit(f"`birdie-tui sessions list` does not list {sid}/{small}:\n{listed}")
    ai = sum(1 for m in history if m.type == "ai")
    record = history[-1].response_metadata.get(RECORD_KEY)
    facts = {"messages": len(history), "records on AI messages": ai if opts.records else 1,
             "one record (json bytes)": len(record if isinstance(record, str) else json.dumps(record))
             if record else 0,
             **session_facts(template, sid), "built in (s)": round(built, 1)}
    print(f"long session {sid}: {facts}; small {small}\n`sessions list`:\n{listed}", flush=True)
    return {"sid": sid, "small": small, "facts": facts}


# ------------------------------------------------------------------ in a terminal
def wait_idle(term: Terminal, cap: float = 15.0, quiet: float = 0.03) -> float:
    """Wait until the app used < `quiet` s of CPU over the last half second (at most `cap` s);
    returns how long it stayed busy (to the start of that quiet half second)."""
    t0 = time.monotonic()
    hist = [(t0, term.tree_cpu())]
    while time.monotonic() - t0 < cap:
        time.sleep(0.1)
        now = time.monotonic()
        hist = [h for h in hist if now - h[0] <= 0.55] + [(now, term.tree_cpu())]
        if now - hist[0][0] >= 0.45 and hist[-1][1] - hist[0][1] < quiet:
            return max(0.0, hist[0][0] - t0)
    return cap


def turn(term: Terminal, word: str, timeout: float) -> tuple[float, float]:
    """Type `word`, Enter 0.1 s after it shows; (echo s, Enter -> offline answer on screen s).
    The answer quotes the message: "Your message:" after the word's last occurrence."""
    t_type = time.monotonic()
    term.send_text(word)
    echo = term.wait_for(lambda s: word.strip() in s, timeout)
    if echo is None:
        raise RuntimeError(f"{word!r} never showed:\n" + term.capture())
    time.sleep(0.1)
    term.send_keys("Enter")
    t_enter = time.monotonic()
    word = word.strip()  # (while the composer clears, the word is nowhere on screen)
    hit = term.wait_for(lambda s: word in s and ANSWER in s.split(word)[-1], timeout)
    if hit is None:
        raise RuntimeError(f"no answer to {word!r}:\n" + term.capture())
    return echo[0] - t_type, hit[0] - t_enter


def tui_open(home: Path, sid: str, opts: argparse.Namespace) -> dict[str, float]:
    res: dict[str, float] = {}
    with Terminal(120, 40) as term:
        t0 = term.launch([str(EXE), "--session-id", sid], app_env(home), str(home / "work"))
        hit = term.wait_for(lambda s: "Quit" in s, opts.timeout)
        if hit is None:
            raise RuntimeError("no first paint:\n" + term.capture())
        res["first paint"] = hit[0] - t0
        term.send_text(MARK1)
        seen: dict[str, float] = {}

        def both(screen: str) -> bool:
            for key, word in (("mark1", MARK1), ("last", LAST)):
                if key not in seen and word in screen:
                    seen[key] = time.monotonic()
            return len(seen) == 2

        if term.wait_for(both, opts.timeout) is None:
            raise RuntimeError(f"saw only {list(seen)}:\n" + term.capture())
        res["typed at first paint: shows"] = seen["mark1"] - t0
        res["last reply on screen"] = seen["last"] - t0
        res["cpu to last reply (s)"] = term.tree_cpu()
        res["rss at last reply (MB)"] = term.tree_rss() / 2**20
        echo, answer = turn(term, " " + MARK2, opts.timeout)
        res["typed after last reply: echo (ms)"] = echo * 1000
        res["turn 1 (right after): Enter -> answer"] = answer
        res["busy after turn 1's answer (s)"] = wait_idle(term)
        for n in (2, 3):
            res[f"turn {n} (app idle): Enter -> answer"] = turn(term, f"zqturn{n}", opts.timeout)[1]
            wait_idle(term)
    return res


def tui_browser(home: Path, small: str, sid: str, opts: argparse.Namespace) -> dict[str, float]:
    with Terminal(120, 40) as term:
        t0 = term.launch([str(EXE), "--session-id", small], app_env(home), str(home / "work"))
        hit = term.wait_for(lambda s: SMALL_END in s, opts.timeout)
        if hit is None:
            raise RuntimeError("small session never showed:\n" + term.capture())
        res = {"small session (reference): last reply on screen": hit[0] - t0}
        wait_idle(term)
        term.send_keys("C-s")
        if term.wait_for(lambda s: "type to filter" in s, opts.timeout) is None:
            raise RuntimeError("no session browser:\n" + term.capture())
        term.send_text(sid)
        time.sleep(0.4)
        cpu0 = term.tree_cpu()
        term.send_keys("Enter")
        t_enter = time.monotonic()
        hit = term.wait_for(lambda s: LAST in s, opts.timeout)
        if hit is None:
            raise RuntimeError("long session never showed:\n" + term.capture())
        res["browser: Enter -> last reply on screen"] = hit[0] - t_enter
        res["browser: cpu Enter -> last reply (s)"] = term.tree_cpu() - cpu0
        return res


# ------------------------------------------------------------------ headless door
async def door(home: Path, sid: str) -> dict[str, float]:
    from birdie_tui.service import local_birdie

    birdie = local_birdie(environ=app_env(home))
    res: dict[str, float] = {}
    t0 = time.perf_counter()
    started = await birdie.start(session_id=sid)
    assert started.session_id == sid, started
    res["door: start (open session)"] = time.perf_counter() - t0
    try:
        for name in ("transcript", "contexts", "injection"):
            t0 = time.perf_counter()
            await getattr(birdie, name)()
            res[f"door: {name}()"] = time.perf_counter() - t0
        for n in (1, 2, 3):  # turn 2 auto-compacts (turn 1's record: messages dropped)
            t0 = time.perf_counter()
            async for _ in birdie.send(f"zqdoor{n}"):
                pass
            res[f"door: send() turn {n}"] = time.perf_counter() - t0
    finally:
        await birdie.close()
    return res


# ------------------------------------------------------------------ runs and report
def one_run(template: Path, built: dict[str, Any], opts: argparse.Namespace) -> dict[str, float]:
    res: dict[str, float] = {"loadavg": float(Path("/proc/loadavg").read_text().split()[0])}
    for step in ("open", "browser", "door"):
        home = Path(tempfile.mkdtemp(prefix="birdie-long-"))
        shutil.copytree(template, home, dirs_exist_ok=True, symlinks=True)
        try:
            if step == "open":
                res |= tui_open(home, built["sid"], opts)
            elif step == "browser":
                res |= tui_browser(home, built["small"], built["sid"], opts)
            else:
                res |= asyncio.run(door(home, built["sid"]))
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return res


def fmt(values: list[float], unit_ms: bool) -> str:
    scale = 1 if unit_ms else 1000
    med, lo, hi = (scale * v for v in (statistics.median(values), min(values), max(values)))
    return f"{med:.0f} ms ({lo:.0f}–{hi:.0f})"


def table(runs: list[dict[str, float]]) -> str:
    lines = ["| measure | median (min–max) |", "|---|---|"]
    for key in runs[0]:
        values = [r[key] for r in runs if key in r]
        if key == "loadavg" or "(s)" in key or "(MB)" in key:
            lines.append(f"| {key} | {statistics.median(values):.2f} "
                         f"({min(values):.2f}–{max(values):.2f}) |")
        else:
            lines.append(f"| {key} | {fmt(values, '(ms)' in key)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=2500)
    parser.add_argument("--tool-every", type=int, default=20)
    parser.add_argument("--no-records", dest="records", action="store_false")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json", help="also write the raw runs here")
    opts = parser.parse_args()
    __import__("birdie_tui.agent.engine")  # the door's imports, outside its timings
    template = Path(tempfile.mkdtemp(prefix="birdie-long-template-"))
    try:
        built = build(template, opts)
        runs = []
        for n in range(opts.runs):
            runs.append(one_run(template, built, opts))
            print(f"run {n + 1}: {json.dumps(runs[-1])}", flush=True)
    finally:
        shutil.rmtree(template, ignore_errors=True)
    if opts.json:
        Path(opts.json).write_text(json.dumps({"built": built, "runs": runs}, indent=2))
    print(f"\n{built['facts']}\n\n" + table(runs))


if __name__ == "__main__":
    main()
