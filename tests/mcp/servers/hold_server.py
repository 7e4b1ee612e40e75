"""A stdio MCP server with one tool that holds the call: for killing the client mid-call.

Usage: hold_server.py PID_FILE [--sync]. `hold` writes this server's pid to PID_FILE, then
waits. With --sync the tool is a plain `def` that sleeps, so the server's event loop is blocked
and it cannot notice its stdin closing (as a server busy in a synchronous call cannot)."""

import os
import sys
import time

import anyio
from mcp.server.fastmcp import FastMCP

pid_file = sys.argv[1]
mcp = FastMCP("hold", log_level="WARNING")


def _write_pid() -> None:
    with open(pid_file, "w", encoding="utf-8") as fh:
        fh.write(str(os.getpid()))


if "--sync" in sys.argv:
    @mcp.tool()
    def hold() -> str:
        """Write this server's pid to the pid file, then block (a long synchronous call)."""
        _write_pid()
        time.sleep(300)
        return "held"
else:
    @mcp.tool()
    async def hold() -> str:
        """Write this server's pid to the pid file, then wait (a long call)."""
        _write_pid()
        await anyio.sleep(300)
        return "held"


if __name__ == "__main__":
    mcp.run(transport="stdio")
