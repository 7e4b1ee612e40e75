"""MCP tools as LangChain tools: a thin wrapper whose calls go through the manager, so a call
always uses the kept session (restarting a dead server first) and every failure, including
a server-side `isError` result, becomes an error tool result instead of ending the turn."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from birdie_tui.mcp.config import safe_name
from birdie_tui.mcp.errors import MCPCallError
from birdie_tui.tools.output import truncate_output

# (MCP tool name, arguments) -> CallToolResult
Caller = Callable[[str, dict[str, Any]], Awaitable[Any]]

def result_text(result: Any) -> str:
    """The text the model sees for a CallToolResult's content blocks."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} {block.mimeType}, {len(block.data) * 3 // 4} bytes]")
        elif kind == "resource":
            inner = block.resource
            parts.append(getattr(inner, "text", None) or f"[resource {inner.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(str(block))
    if not parts and getattr(result, "structuredContent", None) is not None:
        parts.append(json.dumps(result.structuredContent, ensure_ascii=False, default=str))
    return truncate_output("\n".join(parts))


def make_mcp_tool(tool: Any, skill_name: str, call: Caller) -> BaseTool:
    """One LangChain tool for one MCP tool (`mcp.types.Tool`)."""

    async def _run(**arguments: Any) -> str:
        result = await call(tool.name, arguments)
        text = result_text(result)
        if result.isError:
            raise MCPCallError(text or f"{tool.name} failed")
        return text

    schema = dict(tool.inputSchema or {})
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    lc_tool = StructuredTool.from_function(
        coroutine=_run, name=safe_name(tool.name),
        description=(tool.description or tool.name).strip(),
        args_schema=schema, handle_tool_error=False,
    )
    lc_tool.metadata = {"skill": skill_name, "mcp_tool": tool.name}
    return lc_tool
