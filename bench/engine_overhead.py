"""Engine overhead per turn: birdie's Engine against a bare LangGraph one-node graph.

Both drive the same zero-latency chat model: a subclass of the vendor adapters' base
(`providers.sdk_base.SDKChatModel`), so `bind_tools` converts every tool to the OpenAI format
exactly as the real adapters do, and the reply goes through the same streaming path (one text
chunk, then the usage chunk). Only the vendor call itself is replaced.

  engine  birdie_tui.agent.engine.Engine with N generated skills (one bash tool each, a tag, a
          trigger and a short body), one session, T turns; each turn is `run_turn` consumed
          to the end (no tool is called: the model answers at once).
  bare    StateGraph(messages reducer) with one node calling the same model, its tools bound
          once (the same N tools), the same window of the history (last 20 messages behind a
          system message), compiled with AsyncSqliteSaver on a temp file; astream with the
          same stream modes and durability="sync".

Turns of the two are interleaved (engine turn k, then bare turn k), so machine noise falls on
both. Reported: medians of the early turns (1-20), the late ones (the last 20) and all, the
engine/bare ratio and the engine's extra milliseconds, by the wall clock and by CPU time
(`time.process_time`, all threads: the aiosqlite worker's work counts, waiting on fsync does
not, so it is the steadier figure on a busy disk).

    python bench/engine_overhead.py [--skills 100 500] [--turns 500] [--profile 500]

`--profile N` also profiles the engine's late turns at N skills with pyinstrument (or cProfile
when pyinstrument is missing) and prints where the time goes; the late engine figures of that
run include the profiler's own cost.

`--lease`: what the model sees with a full lease. Birdie's format gives a skill with
`## Tools` no body, so each of the N items is a *pair*: the tool skill above (tag `item<i>`)
and a knowledge skill `bench_know_<i>` (a ~300-word body, a trigger, `tool_tags: [item<i>]`):
2N skills in the catalog, N tools plus `get_skill` bound. Every 4th turn (turns 1, 5, 9 ...)
the user text carries `[load a b c]` and the model answers with three `get_skill` calls for
three other knowledge skills (rotating), then with its text after the tool round; with the
default lease (5 turns, at most 3 loaded) three bodies are in the prompt on every later call
(checked on the `injected` event of each turn). The figures are over the plain-answer turns
only; the tool-round turns are reported apart (engine only). The bare graph runs a plain turn
each time, with the same three bodies pasted into its system message (as the engine shows them,
with their header). At turns 10, 100, 250, 500 (outside the timed part) it also records the
latest checkpoint row's `length(checkpoint)` of both graphs, the state's `messages` channel
serialised with the saver's serde (its size and `dumps_typed` / `loads_typed` times, with the
provenance records each AI message carries in `response_metadata["birdie_context"]` and with
those records stripped: the difference is the records' share), the largest stored record (JSON
bytes), and one `lease_state` and `budget_window` call on the history. With `--profile N` it
profiles the plain turns among the last `--profile-turns` (default 20) turns and prints the
share of their time spent in `lease_state`, `budget_window`, provenance building, checkpoint
(de)serialisation, the session JSON and the event loop's wait (pyinstrument: from its frame
tree, each label counted once per stack).

    python bench/engine_overhead.py --lease --skills 100 500 --turns 500 [--profile 500]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import textwrap
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from langchain_core.messages import (  # noqa: E402
    AIMessageChunk,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langgraph.graph.message import add_messages  # noqa: E402

from birdie_tui.providers.sdk_base import SDKChatModel, StreamState  # noqa: E402
from birdie_tui.providers.streaming import usage_metadata  # noqa: E402

WINDOW = 20  # the engine's CONTEXT_MESSAGES
EDGE = 20  # turns in the "early" and "late" medians

SKILL = """\
---
name: bench_{i:04d}
description: Bench skill number {i}, which wraps one shell command.
tags: [bench, group{g}{extra}]
triggers: [frobnicate {i}]
---
Bench skill {i}: use its tool when asked to frobnicate item {i}.

## Tools

### bench_tool_{i:04d}
description: Print a greeting for item {i} with an optional count.
entrypoint: bash:printf '%s %s' {{name}} {{count}}
schema:
  type: object
  properties:
    name:
      type: string
      description: Who to greet.
    count:
      type: integer
      description: How many times.
  required: [name]
"""


class ZeroLatencyModel(SDKChatModel):
    """A vendor adapter whose "API" answers at once with a short text and its usage."""

    vendor: str = "bench"
    model_name: str = "zero-latency"

    async def _vendor_stream(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                             stop: list[str] | None, state: StreamState
                             ) -> AsyncIterator[AIMessageChunk]:
        state.started = True
        state.usage = dict(usage_metadata(120, 4))
        names = requested_loads(messages)
        if names:  # --lease: the user asked for these bodies; one get_skill call each
            state.finish_reason = "tool_calls"
            for n, name in enumerate(names):
                yield AIMessageChunk(content="", tool_call_chunks=[{  # type: ignore[list-item]
                    "name": "get_skill", "args": json.dumps({"skill_name": name}),
                    "id": f"call_{uuid.uuid4().hex[:16]}", "index": n}])
            return
        state.finish_reason = "stop"
        yield AIMessageChunk(content="Fine, noted.")


LOAD_MARK = re.compile(r"\[load ([^\]]+)\]")


def requested_loads(messages: list[BaseMessage]) -> list[str]:
    """The skills a `[load a b c]` in the last message asks for (only when it is the user's:
    after the tool round the model answers with text)."""
    last = messages[-1] if messages else None
    if not isinstance(last, HumanMessage) or not isinstance(last.content, str):
        return []
    found = LOAD_MARK.search(last.content)
    return found.group(1).split() if found else []


KNOWLEDGE = """\
---
name: bench_know_{i:04d}
description: How to look after item {i} (bench knowledge skill).
tags: [bench, group{g}]
triggers: [look after item {i}]
tool_tags: [item{i}]
---
{body}
"""

_BODY_LINES = (
    "Item {i} is one of the bench items kept in group {g}; treat it like its neighbours unless "
    "a rule below says otherwise.",
    "Before frobnicating item {i}, read its current state and say what you are about to change "
    "in one short sentence, so the user can stop you.",
    "- Check that item {i} is not locked by another run; a lock older than {m} minutes is "
    "stale and may be cleared.",
    "- Keep a copy of the previous state of item {i} in the notes folder, named after the date "
    "and the run.",
    "- Never frobnicate more than {m} items of group {g} in one turn: larger batches go through "
    "the nightly job instead.",
    "When the tool fails for item {i}, report its error as it is, do not retry more than once, "
    "and suggest the manual steps from the runbook.",
    "Answers about item {i} quote the count and the name used, and end with what was left "
    "undone, if anything, and why.",
    "Item {i} was migrated from the old store in batch {m}; its history before that lives in "
    "the archive and is read only on request.",
)


def knowledge_body(i: int, words: int = 300) -> str:
    """A deterministic body of about `words` words, different for every item."""
    out: list[str] = [f"Bench knowledge skill {i}: the rules for looking after item {i}."]
    n = 0
    while sum(len(part.split()) for part in out) < words:
        out.append(_BODY_LINES[(i + n) % len(_BODY_LINES)].format(i=i, g=i % 10,
                                                                   m=(i * 7 + n) % 13 + 2))
        n += 1
    return "\n\n".join(out)


def write_skills(root: Path, n: int, lease: bool = False) -> Path:
    for i in range(n):
        folder = root / f"bench_{i:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        extra = f", item{i}" if lease else ""
        (folder / "SKILL.MD").write_text(SKILL.format(i=i, g=i % 10, extra=extra))
        if lease:
            know = root / f"bench_know_{i:04d}"
            know.mkdir(parents=True, exist_ok=True)
            (know / "SKILL.MD").write_text(KNOWLEDGE.format(i=i, g=i % 10,
                                                            body=knowledge_body(i)))
    return root


# ------------------------------------------------------------------ the two contenders
async def start_engine(skills: Path, home: Path, model: Any) -> Any:
    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig

    engine = Engine(EngineOptions(skills_dirs=[skills], provider=ProviderConfig(vendor="offline"),
                                  environ={"BIRDIE_HOME": str(home)}, user="bench"))
    await engine.start()
    engine.model = model
    await engine.open_session()
    return engine


async def engine_turn(engine: Any, text: str) -> int:
    """One turn to the end; returns how many loaded bodies its last model call carried."""
    loaded = 0
    async for event in engine.run_turn(text):
        if event.type == "error":
            raise RuntimeError(event.message)
        if event.type == "injected":
            loaded = sum(1 for s in event.skills if s.reason == "loaded")
    return loaded


class BareState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


async def start_bare(db: Path, model: Any, tools: list[Any],
                     system: Callable[[], str] = lambda: "You are a bench.") -> tuple[Any, Any]:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.graph import START, StateGraph

    bound = model.bind_tools(tools)  # once, as a bare LangGraph app does

    async def agent(state: BareState) -> dict[str, Any]:
        window = [SystemMessage(system()), *state["messages"][-WINDOW:]]
        return {"messages": [await bound.ainvoke(window)]}

    conn = await aiosqlite.connect(str(db))
    saver = AsyncSqliteSaver(conn)
    await saver.setup()
    graph = StateGraph(BareState)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    return conn, graph.compile(checkpointer=saver)


async def bare_turn(graph: Any, text: str) -> None:
    config = {"configurable": {"thread_id": "bench"}}
    async for _ in graph.astream({"messages": [HumanMessage(text)]}, config,
                                 stream_mode=["messages", "updates", "custom"],
                                 durability="sync"):
        pass


# ------------------------------------------------------------------ --lease
LOAD_EVERY = 4  # a turn with three get_skill calls every 4th turn
SAMPLE_AT = (10, 100, 250, 500)  # 1-based turns after which the state is measured


class LeasePlan:
    """Which turns load which bodies, and the bare graph's system message (the same three
    bodies the engine's prompt carries, with the engine's header)."""

    def __init__(self, engine: Any, n_skills: int):
        self.engine, self.n = engine, n_skills
        self.current: list[str] = []

    def loads(self, k: int) -> list[str]:
        if k % LOAD_EVERY:
            return []
        group = k // LOAD_EVERY
        return [f"bench_know_{(3 * group + j) % self.n:04d}" for j in range(3)]

    def engine_text(self, k: int, text: str) -> str:
        names = self.loads(k)
        if names:
            self.current = names
            return f"{text} [load {' '.join(names)}]"
        return text

    def system(self) -> str:
        parts = ["You are a bench."]
        for name in self.current:
            skill = self.engine.registry.get(name)
            parts.append(f"--- {name} skill context ---\n{skill.body}\n\n"
                         f"(Tools for this: bench_tool_{name[-4:]})")
        return "\n\n".join(parts)


def latest_blob(db: Path, thread: str) -> tuple[int, int]:
    """length(checkpoint) of the thread's latest checkpoint row, and how many rows it has."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        row = conn.execute("SELECT length(checkpoint) FROM checkpoints WHERE thread_id = ? "
                           "ORDER BY checkpoint_id DESC LIMIT 1", (thread,)).fetchone()
        rows = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ?",
                            (thread,)).fetchone()[0]
    return (row[0] if row else 0), rows


def best_of(fn: Callable[[], Any], repeat: int = 7) -> float:
    """The fastest of `repeat` calls, in ms."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1000


def without_records(messages: list[Any]) -> list[Any]:
    """The history with the provenance records taken off its AI messages."""
    from birdie_tui.agent.provenance import RECORD_KEY

    out = []
    for msg in messages:
        meta = getattr(msg, "response_metadata", None) or {}
        if RECORD_KEY in meta:
            msg = msg.model_copy(update={"response_metadata": {
                k: v for k, v in meta.items() if k != RECORD_KEY}})
        out.append(msg)
    return out


async def sample_state(engine: Any, bare_db: Path, turn: int) -> dict[str, Any]:
    """What grows with the session, measured between turns (outside the timed part)."""
    from birdie_tui.agent.lease import lease_state
    from birdie_tui.agent.prompt import skill_aliases
    from birdie_tui.agent.provenance import RECORD_KEY
    from birdie_tui.agent.window import budget_window

    values = (await engine.host.graph.aget_state(engine.history.config())).values
    assert "context_log" not in values, "the state still has a context_log channel"
    messages = list(values["messages"])
    records = [m.response_metadata[RECORD_KEY] for m in messages
               if m.type == "ai" and RECORD_KEY in (m.response_metadata or {})]
    bare_msgs = without_records(messages)
    serde = engine.host.saver.serde
    aliases = skill_aliases(engine.toolbox.allowed_skills())
    blob, rows = latest_blob(engine.paths.checkpoints_db(engine.user), engine.session.id)
    bare_blob, _ = latest_blob(bare_db, "bench")
    dumped = {"messages": serde.dumps_typed(messages), "stripped": serde.dumps_typed(bare_msgs)}
    return {
        "turn": turn, "messages": len(messages), "records": len(records), "blob": blob,
        "rows": rows, "bare blob": bare_blob,
        "messages bytes": len(dumped["messages"][1]),
        "without records bytes": len(dumped["stripped"][1]),
        "largest record (json bytes)": max((len(r if isinstance(r, str) else json.dumps(r))
                                            for r in records), default=0),
        "messages dump ms": best_of(lambda: serde.dumps_typed(messages)),
        "messages load ms": best_of(lambda: serde.loads_typed(dumped["messages"])),
        "without records dump ms": best_of(lambda: serde.dumps_typed(bare_msgs)),
        "without records load ms": best_of(lambda: serde.loads_typed(dumped["stripped"])),
        "lease_state ms": best_of(lambda: lease_state(messages, aliases)),
        "budget_window ms": best_of(lambda: budget_window(messages, 1_000)),
    }


# ------------------------------------------------------------------ running
class Profiled:
    """Profiles only the chosen engine turns (one profiler, paused between them)."""

    def __init__(self) -> None:
        self.prof: Any = None

    def begin(self) -> None:
        if self.prof is None:
            self.prof = start_profiler()
        else:
            resume_profiler(self.prof)

    def end(self) -> None:
        pause_profiler(self.prof)


async def run(n_skills: int, turns: int, profile: bool, lease: bool = False,
              profile_turns: int = EDGE) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="birdie-bench-") as tmp:
        root = Path(tmp)
        skills = write_skills(root / "skills", n_skills, lease)
        model = ZeroLatencyModel()
        engine = await start_engine(skills, root / "home", model)
        tools = await engine.toolbox.tools()
        plan = LeasePlan(engine, n_skills) if lease else None
        conn, bare = await start_bare(root / "bare.db", model, tools,
                                      plan.system if plan else (lambda: "You are a bench."))
        times: dict[str, Any] = {"engine": [], "bare": [], "engine cpu": [], "bare cpu": [],
                                 "loads": [], "loaded": [], "samples": []}
        prof = Profiled() if profile else None
        try:
            for k in range(turns):
                text = f"turn {k}: please note this down."
                etext = plan.engine_text(k, text) if plan else text
                load_turn = etext != text
                watched = prof is not None and k >= turns - profile_turns and not load_turn
                if watched:
                    prof.begin()
                t0, c0 = time.perf_counter(), time.process_time()
                loaded = await engine_turn(engine, etext)
                t1, c1 = time.perf_counter(), time.process_time()
                if watched:
                    prof.end()
                await bare_turn(bare, text)
                t2, c2 = time.perf_counter(), time.process_time()
                for key, value in (("engine", t1 - t0), ("bare", t2 - t1), ("engine cpu", c1 - c0),
                                   ("bare cpu", c2 - c1), ("loads", load_turn),
                                   ("loaded", loaded)):
                    times[key].append(value)
                if plan is not None and k + 1 in SAMPLE_AT:
                    times["samples"].append(await sample_state(engine, root / "bare.db", k + 1))
            if prof is not None and prof.prof is not None:
                show_profile(prof.prof, lease)
        finally:
            await engine.aclose()
            await conn.close()
        print(f"  ({len(tools)} tools bound, {len(engine.skills())} skills)")
        return times


def start_profiler() -> Any:
    try:
        from pyinstrument import Profiler
    except ImportError:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
        return prof
    prof = Profiler(async_mode="disabled", interval=0.0005)
    prof.start()
    return prof


def pause_profiler(prof: Any) -> None:
    """Only engine turns are profiled; the bare turns in between are left out."""
    if hasattr(prof, "disable"):
        prof.disable()
    else:
        prof.stop()


def resume_profiler(prof: Any) -> None:
    if hasattr(prof, "enable"):
        prof.enable()
    else:
        prof.start()


def show_profile(prof: Any, lease: bool = False) -> None:
    """Print the (paused) profile; in --lease mode, the shares of the lease, window and provenance parts."""
    if hasattr(prof, "print_stats"):
        import pstats

        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(40)
        if lease:
            table = stats.stats  # type: ignore[attr-defined]
            total = max(v[3] for v in table.values())
            shares = {label: sum(v[3] for (path, _, fn), v in table.items()
                                 if (fn, Path(path).name) in keys or (fn, "") in keys)
                      for label, keys in SHARE_TARGETS.items()}
            print_shares(shares, total, "cProfile, cumulative (nested calls may double count)")
        return
    print(prof.output_text(unicode=True, color=False, show_all=False))
    if lease:
        root = prof.last_session.root_frame()
        print_shares(frame_shares(root), root.time, "pyinstrument samples")


# label -> (function, file name) pairs; "" matches any file. A match's nested matches of the
# same label are not counted again.
SHARE_TARGETS: dict[str, set[tuple[str, str]]] = {
    "lease_state": {("lease_state", "lease.py")},
    "budget_window": {("budget_window", "window.py")},
    "provenance records (call_record, with_record, to_dict, segments)": {
        ("call_record", "graph.py"), ("with_record", "graph.py"), ("to_dict", "provenance.py"),
        ("add", "provenance.py")},
    "system prompt (build_system_prompt)": {("build_system_prompt", "prompt.py")},
    "agent_node (all of it, model call included)": {("agent_node", "graph.py")},
    "checkpoint serialisation (dumps_typed)": {("dumps_typed", "")},
    "checkpoint deserialisation (loads_typed)": {("loads_typed", "")},
    "session JSON (Engine._record)": {("_record", "engine.py")},
    "event loop waiting (selector select: the aiosqlite thread, fsync)": {
        ("select", "selectors.py")},
}


def frame_shares(root: Any) -> dict[str, float]:
    out = dict.fromkeys(SHARE_TARGETS, 0.0)

    def label_of(frame: Any) -> list[str]:
        fn = (frame.function or "").rsplit(".", 1)[-1]
        name = Path(frame.file_path or "").name
        return [label for label, keys in SHARE_TARGETS.items()
                if (fn, name) in keys or (fn, "") in keys]

    stack: list[tuple[Any, frozenset[str]]] = [(root, frozenset())]
    while stack:
        frame, inside = stack.pop()
        labels = [label for label in label_of(frame) if label not in inside]
        for label in labels:
            out[label] += frame.time
        inside = inside | frozenset(labels)
        stack.extend((child, inside) for child in frame.children)
    return out


def print_shares(shares: dict[str, float], total: float, how: str) -> None:
    print(f"\n  share of the profiled plain turns ({how}; {total * 1000:.0f} ms in all)")
    for label, spent in shares.items():
        print(f"    {label:<55} {spent * 1000:8.1f} ms {100 * spent / total:6.1f} %")


def ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def report(n_skills: int, times: dict[str, Any], lease: bool = False) -> None:
    """Medians of the early, late and all (plain) turns; in --lease mode the tool-round turns
    and the state samples follow."""
    loads = times["loads"]
    keep = [k for k, load in enumerate(loads) if not load]  # turn indices measured
    turns = len(keep)
    edge = min(EDGE, turns)
    first, last = keep[:edge], keep[turns - edge:]
    parts = ((f"{first[0] + 1}-{first[-1] + 1}", first), (f"{last[0] + 1}-{last[-1] + 1}", last),
             ("all", keep))
    what = f"{n_skills} skills, {len(loads)} turns" if not lease else (
        f"--lease, {n_skills} tool + {n_skills} knowledge skills, {len(loads)} turns: "
        f"{turns} plain (these figures), {len(loads) - turns} with the get_skill round")
    print(f"\n{what} (medians per turn)")
    if lease:
        carried = [times["loaded"][k] for k in keep]
        print(f"  loaded bodies in the prompt on the plain turns: min {min(carried)}, "
              f"max {max(carried)}")
    print(f"  {'':<5}{'turns':<9} {'engine':>10} {'bare':>10} {'ratio':>7} {'extra':>10}")
    for clock, suffix in (("wall", ""), ("cpu", " cpu")):
        for label, part in parts:
            eng = ms([times["engine" + suffix][k] for k in part])
            bare = ms([times["bare" + suffix][k] for k in part])
            print(f"  {clock:<5}{label:<9} {eng:7.2f} ms {bare:7.2f} ms {eng / bare:6.2f}x "
                  f"{eng - bare:7.2f} ms")
    if lease:
        report_lease(times)


def report_lease(times: dict[str, Any]) -> None:
    rounds = [k for k, load in enumerate(times["loads"]) if load]
    if rounds:
        edge = min(EDGE // 4 or 1, len(rounds))
        for clock, key in (("wall", "engine"), ("cpu", "engine cpu")):
            early = ms([times[key][k] for k in rounds[:edge]])
            late = ms([times[key][k] for k in rounds[-edge:]])
            print(f"  get_skill turns (2 model calls + tool round), engine {clock}: first {edge} "
                  f"{early:.2f} ms, last {edge} {late:.2f} ms")
    if not times["samples"]:
        return
    keys = list(times["samples"][0])
    print("\n  state after turn (checkpoint row of the engine / bare; the messages channel "
          "serialised with the saver's serde, with and without its records; best of 7)")
    print("  " + " | ".join(keys))
    for sample in times["samples"]:
        print("  " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v)
                                for v in sample.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--profile", type=int, default=None, metavar="N",
                        help="profile the engine's late turns at N skills")
    parser.add_argument("--lease", action="store_true",
                        help="knowledge skills and a full lease of 3 loaded bodies")
    parser.add_argument("--profile-turns", type=int, default=EDGE, metavar="T",
                        help="profile the (plain) engine turns among the last T")
    args = parser.parse_args()
    for n in args.skills:
        times = asyncio.run(run(n, args.turns, profile=args.profile == n, lease=args.lease,
                                profile_turns=args.profile_turns))
        report(n, times, args.lease)


if __name__ == "__main__":
    main()
