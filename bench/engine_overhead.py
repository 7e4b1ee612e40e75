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
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import textwrap
import time
from collections.abc import AsyncIterator
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
tags: [bench, group{g}]
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
        state.finish_reason = "stop"
        yield AIMessageChunk(content="Fine, noted.")


def write_skills(root: Path, n: int) -> Path:
    for i in range(n):
        folder = root / f"bench_{i:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.MD").write_text(SKILL.format(i=i, g=i % 10))
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


async def engine_turn(engine: Any, text: str) -> None:
    async for event in engine.run_turn(text):
        if event.type == "error":
            raise RuntimeError(event.message)


class BareState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


async def start_bare(db: Path, model: Any, tools: list[Any]) -> tuple[Any, Any]:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.graph import START, StateGraph

    bound = model.bind_tools(tools)  # once, as a bare LangGraph app does

    async def agent(state: BareState) -> dict[str, Any]:
        window = [SystemMessage("You are a bench."), *state["messages"][-WINDOW:]]
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


# ------------------------------------------------------------------ running
async def run(n_skills: int, turns: int, profile: bool) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(prefix="birdie-bench-") as tmp:
        root = Path(tmp)
        skills = write_skills(root / "skills", n_skills)
        model = ZeroLatencyModel()
        engine = await start_engine(skills, root / "home", model)
        tools = await engine.toolbox.tools()
        conn, bare = await start_bare(root / "bare.db", model, tools)
        times: dict[str, list[float]] = {"engine": [], "bare": [], "engine cpu": [],
                                         "bare cpu": []}
        profiler = None
        try:
            for k in range(turns):
                text = f"turn {k}: please note this down."
                if profile and k == turns - EDGE:
                    profiler = start_profiler()
                t0, c0 = time.perf_counter(), time.process_time()
                await engine_turn(engine, text)
                t1, c1 = time.perf_counter(), time.process_time()
                if profiler is not None:
                    pause_profiler(profiler)
                await bare_turn(bare, text)
                t2, c2 = time.perf_counter(), time.process_time()
                if profiler is not None:
                    resume_profiler(profiler)
                times["engine"].append(t1 - t0)
                times["bare"].append(t2 - t1)
                times["engine cpu"].append(c1 - c0)
                times["bare cpu"].append(c2 - c1)
            if profiler is not None:
                stop_profiler(profiler)
        finally:
            await engine.aclose()
            await conn.close()
        print(f"  ({len(tools)} tools bound)")
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


def stop_profiler(prof: Any) -> None:
    pause_profiler(prof)
    if hasattr(prof, "print_stats"):
        import pstats

        pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
    else:
        print(prof.output_text(unicode=True, color=False, show_all=False))


def ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def report(n_skills: int, times: dict[str, list[float]]) -> None:
    turns = len(times["engine"])
    edge = min(EDGE, turns)
    parts = ((f"1-{edge}", slice(0, edge)), (f"{turns - edge + 1}-{turns}",
                                            slice(turns - edge, turns)), ("all", slice(0, turns)))
    print(f"\n{n_skills} skills, {turns} turns (medians per turn)")
    print(f"  {'':<5}{'turns':<9} {'engine':>10} {'bare':>10} {'ratio':>7} {'extra':>10}")
    for clock, suffix in (("wall", ""), ("cpu", " cpu")):
        for label, part in parts:
            eng = ms(times["engine" + suffix][part])
            bare = ms(times["bare" + suffix][part])
            print(f"  {clock:<5}{label:<9} {eng:7.2f} ms {bare:7.2f} ms {eng / bare:6.2f}x "
                  f"{eng - bare:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--profile", type=int, default=None, metavar="N",
                        help="profile the engine's late turns at N skills")
    args = parser.parse_args()
    for n in args.skills:
        times = asyncio.run(run(n, args.turns, profile=args.profile == n))
        report(n, times)


if __name__ == "__main__":
    main()
