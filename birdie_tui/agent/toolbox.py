"""Which tools exist for the next model call: rebuilt from the registry and the session's policy
each call, so a toggle (or a reload) takes effect on the very next call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from langchain_core.tools import BaseTool

from birdie_tui.agent.skill_tools import make_skill_tools
from birdie_tui.skills.adapter import make_tool
from birdie_tui.skills.models import Skill
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry

# Given an MCP skill, return its server's tools (the MCP manager plugs in here).
MCPToolSource = Callable[[Skill], Awaitable[list[BaseTool]]]


class Toolbox:
    def __init__(
        self,
        registry: SkillRegistry,
        policy: Callable[[], SkillPolicy],
        *,
        tool_timeout: float = 120.0,
        mcp_tools: MCPToolSource | None = None,
    ):
        self.registry = registry
        self._policy = policy
        self.tool_timeout = tool_timeout
        self.mcp_tools = mcp_tools
        # Built tools keyed by the Skill object: a reload makes new objects, so no invalidation.
        self._cache: dict[int, tuple[Skill, list[BaseTool]]] = {}
        self._mcp_owner: dict[str, Skill] = {}  # MCP tool name -> its skill (for approval)

    def allowed_skills(self) -> list[Skill]:
        return self._policy().allowed(self.registry)

    def find_allowed(self, name: str) -> Skill | None:
        skill = self.registry.get(name)
        return skill if skill is not None and self._policy().is_enabled(skill) else None

    def _skill_tools(self, skill: Skill) -> list[BaseTool]:
        hit = self._cache.get(id(skill))
        if hit is not None and hit[0] is skill:
            return hit[1]
        tools = [make_tool(t, skill, timeout=self.tool_timeout) for t in skill.tools]
        self._cache[id(skill)] = (skill, tools)
        return tools

    async def tools(self, skills: list[Skill] | None = None) -> list[BaseTool]:
        skills = self.allowed_skills() if skills is None else skills
        out: list[BaseTool] = []
        for skill in skills:
            out.extend(self._skill_tools(skill))
            if skill.mcp_server is not None and self.mcp_tools is not None:
                taken = {t.name for t in out}
                for tool in await self.mcp_tools(skill):
                    if tool.name not in taken:  # first one wins, as between skill files
                        self._mcp_owner[tool.name] = skill
                        out.append(tool)
        if any(s.format == "agent-skills" for s in skills):
            out.extend(make_skill_tools(self.find_allowed))
        return out

    def tools_by_tag(self, skills: list[Skill]) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for skill in skills:
            for tool in skill.tools:
                for tag in skill.tags:
                    index.setdefault(tag, []).append(tool.name)
        return index

    def skill_for_tool(self, tool_name: str) -> Skill | None:
        return self.registry.skill_for_tool(tool_name) or self._mcp_owner.get(tool_name)

    def requires_approval(self, tool_name: str) -> bool:
        skill = self.skill_for_tool(tool_name)
        return skill is not None and skill.requires_approval(tool_name)
