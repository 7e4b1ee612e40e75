"""A stdio "MCP server" that exits at once with an error, as a server missing its API key does.

Usage: exit_server.py LAUNCH_LOG. Each launch appends `launch PID` to LAUNCH_LOG."""

import os
import sys

with open(sys.argv[1], "a", encoding="utf-8") as fh:
    fh.write(f"launch {os.getpid()}\n")
sys.exit("exit_server: EXAMPLE_API_KEY is not set")
