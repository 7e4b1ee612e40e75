"""A turn over ACP against the same turn through the door `--print` uses (engine time).

  print  the door `birdie-tui --print` runs a turn on (`LocalBirdie.send`, in this process),
         each turn's events consumed to the end: the engine's time for the turn, with no
         process start or engine start in it.
  acp    `birdie-tui acp` in a child process, driven by the ACP SDK's own client over its
         stdio (the same offline model, the same home layout): one `session/prompt` each,
         from the request to its response, every update received and parsed on the way.

Both run the offline model at full speed, a turn that calls a tool (`list_files`, no approval)
and a turn that only answers, alternately; the two are interleaved turn by turn, each in its
own session of its own scratch BIRDIE_HOME. Reported: medians of the wall time per turn and of
CPU time per turn (this process for print; the agent process's user+system for acp, read from
/proc), and the acp/print ratios. Target: acp ≤ 1.2× print.

    python bench/acp_turn.py [--turns 40]
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MESSAGES = ("call list_files {\"path\": \".\"}", "what can you do for me today?")


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Quiet:
    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no approval expected")

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        pass


async def main(turns: int) -> None:
    from acp import text_block
    from acp.schema import ClientCapabilities
    from acp.stdio import spawn_agent_process

    from birdie_tui.service import local_birdie

    scratch = Path(tempfile.mkdtemp(prefix="acp-bench-"))
    for name in ("print", "acp"):
        (scratch / name / "home").mkdir(parents=True)
    work = scratch / "work"
    work.mkdir()
    (work / "README.md").write_text("bench\n")
    os.chdir(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env.update(BIRDIE_HOME=str(scratch / "acp" / "home"), PYTHONPATH=str(ROOT))
    os.environ["BIRDIE_HOME"] = str(scratch / "print" / "home")
    door = local_birdie()
    await door.start()
    errors = open(scratch / "acp.stderr", "wb")
    rows: dict[str, list[float]] = {"print wall": [], "acp wall": [], "print cpu": [],
                                    "acp cpu": []}
    async with spawn_agent_process(Quiet(), sys.executable, "-m", "birdie_tui.cli", "acp",
                                   env=env, cwd=str(work),
                                   transport_kwargs={"stderr": errors.fileno()}) as (conn, proc):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=str(work))).session_id
        for turn in range(turns + 2):  # two warm-up turns each, not counted
            text = MESSAGES[turn % 2]
            cpu, wall = time.process_time(), time.perf_counter()
            async for _ in door.send(text):
                pass
            print_wall, print_cpu = time.perf_counter() - wall, time.process_time() - cpu
            cpu, wall = cpu_of(proc.pid), time.perf_counter()
            await conn.prompt(session_id=sid, prompt=[text_block(text)])
            acp_wall, acp_cpu = time.perf_counter() - wall, cpu_of(proc.pid) - cpu
            if turn >= 2:
                rows["print wall"].append(print_wall)
                rows["print cpu"].append(print_cpu)
                rows["acp wall"].append(acp_wall)
                rows["acp cpu"].append(acp_cpu)
    await door.close()
    med = {name: statistics.median(values) * 1000 for name, values in rows.items()}
    print(f"{turns} turns each, interleaved; load average {os.getloadavg()[0]:.2f}")
    print("| per turn (median) | print (door) | acp | acp / print |")
    print("|---|---|---|---|")
    for what in ("wall", "cpu"):
        p, a = med[f"print {what}"], med[f"acp {what}"]
        print(f"| {what} | {p:.1f} ms | {a:.1f} ms | {a / p:.2f}× |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    asyncio.run(main(parser.parse_args().turns))
