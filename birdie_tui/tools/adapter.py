"""SkillTool → LangChain `StructuredTool` (the only module of `skills/` and `tools/` that imports langchain_core).

Errors are raised as `ToolException` with `handle_tool_error=False`, so the graph's ToolNode
turns them into an error `ToolMessage` (status="error").
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from birdie_tui.skills.models import Skill, SkillTool

from .call_limits import max_timeout, model_schema
from .entrypoints import run_tool_call
from .workspace_calls import current_workspace, tool_call


class SkillLangChainTool(StructuredTool):
    """A `StructuredTool` that knows, while it runs, which of the model's calls it runs (the
    call id reaches a workspace's terminal: `workspace_calls.tool_call`)."""

    async def arun(self, tool_input: str | dict[str, Any], *args: Any,
                   tool_call_id: str | None = None, **kwargs: Any) -> Any:
        with tool_call(tool_call_id):
            return await super().arun(tool_input, *args, tool_call_id=tool_call_id, **kwargs)


def make_tool(tool: SkillTool, skill: Skill, *, timeout: float = 120.0,
              max_call_timeout: float | None = None) -> BaseTool:
    """Wrap one skill tool; its JSON schema is passed through as a dict `args_schema`, with
    the model's optional `timeout_s` added for bash/http tools (`call_limits`).

    The tool's own `timeout:` (newer Birdie's SKILL.MD), when given, replaces `timeout` and is
    the most a `timeout_s` may ask for; else `max_call_timeout` is (default 600 s). A failed
    call is tried again as the tool's `retries:` says. A `bash:` call made while the turn has
    a workspace (`workspace_calls.using_workspace`) may go through it."""
    if tool.timeout_s is not None:
        timeout = tool.timeout_s

    async def _run(**kwargs: Any) -> str:
        outcome = await run_tool_call(tool, kwargs, skill_dir=skill.folder, timeout=timeout,
                                      max_call_timeout=max_call_timeout, env_allow=skill.env,
                                      workspace=current_workspace())
        if outcome.error:
            raise ToolException(outcome.content)
        return outcome.content

    schema = model_schema(tool, timeout, max_timeout(tool, max_call_timeout))
    lc_tool = SkillLangChainTool.from_function(
        coroutine=_run, name=tool.name, description=tool.description or tool.name,
        args_schema=schema, handle_tool_error=False,
    )
    lc_tool.metadata = {"skill": skill.name}
    return lc_tool
