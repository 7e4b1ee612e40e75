"""What a sub-agent call costs over a plain tool call (engine time, in this process).

  tool    a turn whose model calls `list_files` itself: two model calls, one tool run.
  agent   a turn whose model calls the sub-agent `Lister`, whose child calls the same
          `list_files`: the parent's two model calls, the child's two, one tool run, and
          the child's own thread (its checkpoints, its prompt, its events relayed).
  answer  a turn whose model calls the sub-agent `Answerer`, whose child only answers (one
          model call, no tool): the fixed cost of starting a child.

The offline model at full speed, through the door `--print` uses (`LocalBirdie.send`), each
turn's events consumed to the end; the three kinds interleaved turn by turn in one session of
a scratch BIRDIE_HOME (after two warm-up rounds). Reported: medians of wall and CPU time per
turn, and agent/tool, answer/tool.

    python bench/subagent_call.py [--turns 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENTS = {
    "lister": "---\nname: Lister\ndescription: Lists a folder.\nallowed_skills: [filesystem]\n"
              "---\n\n## Prompt\n\ncall list_files {\"path\": \".\"}\n",
    "answerer": "---\nname: Answerer\ndescription: Answers.\n---\n\n## Prompt\n\nSay hi.\n",
}
KINDS = {"tool": 'call list_files {"path": "."}', "agent": "call Lister",
         "answer": "call Answerer"}


async def main(turns: int) -> None:
    from birdie_tui.service import local_birdie

    scratch = Path(tempfile.mkdtemp(prefix="subagent-bench-"))
    home, work = scratch / "home", scratch / "work"
    for name, text in AGENTS.items():
        (home / "agents" / name).mkdir(parents=True)
        (home / "agents" / name / "AGENT.MD").write_text(text)
    work.mkdir()
    (work / "README.md").write_text("bench\n")
    os.chdir(work)
    os.environ["BIRDIE_HOME"] = str(home)
    os.environ.pop("LLM_VENDOR", None)
    door = local_birdie()
    await door.start(enable=["Lister", "Answerer"])
    rows: dict[str, list[tuple[float, float]]] = {kind: [] for kind in KINDS}
    for turn in range(turns + 2):
        for kind, text in KINDS.items():
            cpu, wall = time.process_time(), time.perf_counter()
            events = [event async for event in door.send(text)]
            spent = (time.perf_counter() - wall, time.process_time() - cpu)
            assert events[-1].type == "done", events[-1]
            if kind != "tool":
                assert any(e.type == "agent_end" and e.status == "done" for e in events)
            if turn >= 2:
                rows[kind].append(spent)
    await door.close()
    medians = {kind: (statistics.median(w for w, _ in values) * 1000,
                      statistics.median(c for _, c in values) * 1000)
               for kind, values in rows.items()}
    print(f"{turns} turns of each kind, medians per turn:")
    for kind, (wall, cpu) in medians.items():
        print(f"  {kind:<7} wall {wall:7.1f} ms   cpu {cpu:7.1f} ms")
    for kind in ("agent", "answer"):
        print(f"  {kind}/tool  wall {medians[kind][0] / medians['tool'][0]:.2f}x   "
              f"cpu {medians[kind][1] / medians['tool'][1]:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    asyncio.run(main(parser.parse_args().turns))
