"""A stdio MCP server for tests that floods its stderr during a call (a noisy library, a debug
print in a loop): the app's log of it must stay capped while it runs."""

import sys

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("noisy", log_level="WARNING")


@mcp.tool()
def spew(megabytes: int) -> str:
    """Write `megabytes` MB of lines to stderr, then a last line, and answer."""
    line = "noise " * 16 + "\n"  # 97 bytes
    for _ in range(megabytes * 1_000_000 // len(line)):
        sys.stderr.write(line)
    print("spew done", file=sys.stderr, flush=True)
    return f"spewed {megabytes} MB"


if __name__ == "__main__":
    mcp.run(transport="stdio")
