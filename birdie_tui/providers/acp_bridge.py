"""The MCP stdio server an ACP agent is given (`mcpServers` entry "birdie", as in Birdie
0.15.1): it offers the turn's tools, and relays each call to the model call that started it.

Run as `python -m birdie_tui.providers.acp_bridge` by the agent, with BIRDIE_ACP_RELAY (a Unix
socket the provider listens on for this one model call) and BIRDIE_ACP_TOKEN. It runs no tool
itself: the provider runs the tool the call was bound with, through Birdie's own path
(argument checks, timeouts, bounded output, the reaper, the turn's approvals). One JSON line
each way per request: `{"token", "op": "list"}` -> `{"tools": [...]}`, `{"token", "op": "call",
"name", "arguments"}` -> `{"text", "error"}`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

RELAY_VARIABLE = "BIRDIE_ACP_RELAY"
TOKEN_VARIABLE = "BIRDIE_ACP_TOKEN"
SERVER_NAME = "birdie"  # the mcpServers entry's name, as 0.15.1 named it
LINE_LIMIT = 64 * 1024 * 1024  # a tool's bounded output, with room for its JSON


async def relay(request: dict[str, Any]) -> dict[str, Any]:
    """One request to the provider and its answer (a fresh connection each: calls may overlap)."""
    reader, writer = await asyncio.open_unix_connection(os.environ[RELAY_VARIABLE],
                                                        limit=LINE_LIMIT)
    try:
        writer.write(json.dumps({**request, "token": os.environ[TOKEN_VARIABLE]}).encode()
                     + b"\n")
        await writer.drain()
        line = await reader.readline()
    finally:
        writer.close()
    if not line:
        raise ConnectionError("Birdie ended this model call; the tool was not run")
    answer: dict[str, Any] = json.loads(line)
    return answer


def build_server() -> Any:
    import mcp.types as types
    from mcp.server.lowlevel import Server

    server: Any = Server(SERVER_NAME)

    @server.list_tools()  # type: ignore[untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        answer = await relay({"op": "list"})
        return [types.Tool(name=t["name"], description=t.get("description") or "",
                           inputSchema=t.get("parameters") or {"type": "object",
                                                               "properties": {}})
                for t in answer.get("tools", [])]

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        try:
            answer = await relay({"op": "call", "name": name, "arguments": arguments or {}})
        except (OSError, ValueError) as exc:
            answer = {"text": f"Not run: {exc}", "error": True}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(answer.get("text", "")))],
            isError=bool(answer.get("error")))

    return server


async def serve() -> None:
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> int:
    if not os.environ.get(RELAY_VARIABLE) or not os.environ.get(TOKEN_VARIABLE):
        print(f"acp_bridge: {RELAY_VARIABLE} and {TOKEN_VARIABLE} must be set (Birdie's ACP "
              "provider starts this server for an agent)", file=sys.stderr)
        return 2
    asyncio.run(serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
