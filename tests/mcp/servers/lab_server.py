"""A stdio MCP server for tests: tools that answer, fail, crash, report their pid; it writes
to stderr on start (that must land in the log file, never on the screen).

Options: --slow-start N (sleep before serving), --noise TEXT (stderr line at start)."""

import argparse
import os
import sys
import time

from mcp.server.fastmcp import FastMCP

parser = argparse.ArgumentParser()
parser.add_argument("--slow-start", type=float, default=0.0)
parser.add_argument("--noise", default="lab server stderr noise")
opts = parser.parse_args()

print(opts.noise, file=sys.stderr, flush=True)
if opts.slow_start:
    time.sleep(opts.slow_start)

mcp = FastMCP("lab", log_level="WARNING")


@mcp.tool()
def shout(text: str) -> str:
    """Upper-case the text."""
    print(f"shouting {text}", file=sys.stderr, flush=True)
    return text.upper()


@mcp.tool()
def pid() -> str:
    """This server's process id."""
    return str(os.getpid())


@mcp.tool()
def refuse(reason: str) -> str:
    """Always fails with the reason."""
    raise ValueError(f"refused: {reason}")


@mcp.tool()
def crash() -> str:
    """Exit the server in the middle of the call."""
    os._exit(3)


@mcp.tool(name="lab.dotted")
def dotted() -> str:
    """A tool whose MCP name providers would reject."""
    return "dotted ok"


if __name__ == "__main__":
    mcp.run(transport="stdio")
