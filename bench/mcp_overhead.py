"""MCP tool-call overhead: a kept session (birdie's MCPManager) vs. a new session per call.

The tool is the bundled demo server's `echo` (it does no work, so the figure is pure overhead).
Every call goes through the LangChain tool the agent binds (`tool.ainvoke`):

  kept     birdie_tui.mcp.MCPManager: one session for the app's life; the first call also
           pays the start (spawn + initialize + tools/list), reported separately
  per-call langchain_mcp_adapters.MultiServerMCPClient tools, which open a new session for
           every call (Birdie 0.1.5's way): for stdio a new server process per call

for stdio (the demo server) and streamable HTTP (the same tools served by FastMCP on a
loopback port, started as a subprocess).

    python bench/mcp_overhead.py [--calls 200] [--fresh-calls 15]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HTTP_SERVER = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[2])
    import server  # the demo server's tools
    server.mcp.settings.port = int(sys.argv[1])
    server.mcp.run(transport="streamable-http")
""")


def summary(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return (f"{statistics.median(ms):8.2f} ms | {statistics.mean(ms):8.2f} ms | "
            f"{p95:8.2f} ms | {len(ms):>5}")


async def timed_calls(tool, n: int) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        result = await tool.ainvoke({"message": f"ping {i}"})
        out.append(time.perf_counter() - t0)
        assert f"ping {i}" in str(result), result
    return out


async def kept(skill, logs: Path, calls: int) -> tuple[float, list[float]]:
    from birdie_tui.mcp.manager import MCPManager

    manager = MCPManager(logs, start_timeout=30)
    try:
        t0 = time.perf_counter()
        tools = {t.name: t for t in await manager.tools_for(skill)}
        start = time.perf_counter() - t0
        await timed_calls(tools["echo"], 5)  # warm-up
        return start, await timed_calls(tools["echo"], calls)
    finally:
        await manager.aclose()


async def per_call(connection: dict, calls: int) -> list[float]:
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient({"demo": connection})
    tools = {t.name: t for t in await client.get_tools()}
    await timed_calls(tools["echo"], 1)  # warm-up
    return await timed_calls(tools["echo"], calls)


def demo_skill(folder: Path, server: dict):
    from birdie_tui.skills.models import MCPServerConfig, Skill

    return Skill(name="demo", description="demo", path=folder / "SKILL.MD",
                 mcp_server=MCPServerConfig(**server))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_http(demo: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", HTTP_SERVER, str(port), str(demo)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the HTTP server did not start")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--fresh-calls", type=int, default=15)
    args = parser.parse_args()
    demo = REPO / "skills" / "mcp_demo"
    logs = Path(tempfile.mkdtemp(prefix="birdie-bench-")) / "logs"
    rows = []

    stdio = {"transport": "stdio", "command": "python", "args": ["server.py"]}
    start, samples = await kept(demo_skill(demo, stdio), logs, args.calls)
    rows.append(("stdio, kept session (birdie)", samples, start))
    fresh = await per_call({"transport": "stdio", "command": sys.executable,
                            "args": [str(demo / "server.py")], "cwd": str(demo)},
                           args.fresh_calls)
    rows.append(("stdio, new session per call", fresh, None))

    proc, url = start_http(demo)
    try:
        http = {"transport": "streamable_http", "url": url}
        start, samples = await kept(demo_skill(demo, http), logs, args.calls)
        rows.append(("streamable HTTP, kept session (birdie)", samples, start))
        fresh = await per_call({"transport": "streamable_http", "url": url}, args.fresh_calls)
        rows.append(("streamable HTTP, new session per call", fresh, None))
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    print(f"Python {sys.version.split()[0]}, echo tool of skills/mcp_demo, via tool.ainvoke\n")
    print("| mode | median | mean | p95 | calls | first use (start) |")
    print("|---|---|---|---|---|---|")
    for name, samples, start in rows:
        first = f"{start * 1000:.0f} ms" if start is not None else "–"
        print(f"| {name} | {summary(samples)} | {first} |")
    by = {name: statistics.median(s) for name, s, _ in rows}
    for kind in ("stdio", "streamable HTTP"):
        ratio = by[f"{kind}, new session per call"] / by[f"{kind}, kept session (birdie)"]
        print(f"\n{kind}: a kept session is {ratio:.0f}× faster per call (median)")


if __name__ == "__main__":
    asyncio.run(main())
