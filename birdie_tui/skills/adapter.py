"""SkillTool → LangChain `StructuredTool` (the only module here that imports langchain_core).

Errors are raised as `ToolException` with `handle_tool_error=False`, so the graph's ToolNode
turns them into an error `ToolMessage` (status="error").
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from .entrypoints import run_entrypoint
from .models import Skill, SkillTool


def make_tool(tool: SkillTool, skill: Skill, *, timeout: float = 120.0) -> BaseTool:
    """Wrap one skill tool; its JSON schema is passed through as a dict `args_schema`.
    The tool's own `timeout:` (newer Birdie's SKILL.MD), when given, replaces `timeout`."""
    if tool.timeout_s is not None:
        timeout = tool.timeout_s

    async def _run(**kwargs: Any) -> str:
        outcome = await run_entrypoint(tool, kwargs, skill_dir=skill.folder, timeout=timeout)
        if outcome.error:
            raise ToolException(outcome.content)
        return outcome.content

    schema = dict(tool.schema)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    lc_tool = StructuredTool.from_function(
        coroutine=_run, name=tool.name, description=tool.description or tool.name,
        args_schema=schema, handle_tool_error=False,
    )
    lc_tool.metadata = {"skill": skill.name}
    return lc_tool

