"""Which tools exist for the next model call: rebuilt from the registry and the session's policy
each call, so a toggle (or a reload) takes effect on the very next call.

What costs O(tools) is built once and reused while its inputs are the same objects: a skill's
LangChain tools (per Skill object: a reload makes new ones), and the model bound to a tool list
(`bind`: converting every tool's schema to the vendor format is the expensive part of a call).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from operator import is_
from typing import Any, Protocol

from langchain_core.tools import BaseTool

from birdie_tui.agent.prompt import catalog_for, load_name, skill_aliases
from birdie_tui.agent.skill_tools import make_get_skill, make_skill_tools
from birdie_tui.providers.tokens import estimate_tokens
from birdie_tui.skills.models import Skill, SkillTool
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.tools.adapter import make_tool

# Given an MCP skill, return its server's tools (the MCP manager plugs in here).
MCPToolSource = Callable[[Skill], Awaitable[list[BaseTool]]]


class GivenTools(Protocol):
    """MCP servers a client gave this session (`mcp/given.py`): stand-in skills, on for this
    session only, whose tools come from their own manager."""

    def skills(self) -> list[Skill]: ...
    async def tools_for(self, skill: Skill) -> list[Any]: ...


class Toolbox:
    def __init__(
        self,
        registry: SkillRegistry,
        policy: Callable[[], SkillPolicy],
        *,
        tool_timeout: float = 120.0,
        max_call_timeout: float | None = None,
        mcp_tools: MCPToolSource | None = None,
        given: Callable[[], GivenTools | None] = lambda: None,
    ):
        self.registry = registry
        self._policy = policy
        self.tool_timeout = tool_timeout
        self.max_call_timeout = max_call_timeout  # clamps a model's `timeout_s`
        self.mcp_tools = mcp_tools
        self._given = given  # read on every call: the session may change under the toolbox
        # Built tools keyed by the Skill object: a reload makes new objects, so no invalidation.
        self._cache: dict[int, tuple[Skill, list[BaseTool]]] = {}
        self._mcp_owner: dict[str, Skill] = {}  # MCP tool name -> its skill (for approval)
        self._skill_tools_pair: list[BaseTool] | None = None  # load_skill, read_skill_file
        self._get_skill: BaseTool | None = None
        # How skill bodies reach the prompt (agent.prompt.LOADING_MODES) and for how long.
        self.loading = "both"
        self.decay_turns = 5
        self._schema_tokens: tuple[tuple[BaseTool, ...], int] | None = None
        # (model, tools, model.bind_tools(tools)) of the last call: reused while both are the
        # same objects; a reload, a toggle or another model makes a new one.
        self._bound: tuple[Any, tuple[BaseTool, ...], Any] | None = None
        self._allowed: tuple[tuple[Any, ...], list[Skill]] | None = None
        self._by_tag: tuple[tuple[Skill, ...], dict[str, list[str]]] | None = None
        self._static: tuple[tuple[str | Skill, ...], list[BaseTool]] | None = None  # no MCP in it

    def allowed_skills(self) -> list[Skill]:
        """The skills the session's policy lets the model use, worked out again only when the
        registry was replaced or a grant changed; then the servers given to the session."""
        policy = self._policy()
        key = (self.registry.version, tuple(policy.enabled_names),
               tuple(policy.disabled_names))
        if self._allowed is None or self._allowed[0] != key:
            self._allowed = (key, policy.allowed(self.registry))
        given = self._given()
        return [*self._allowed[1], *(given.skills() if given is not None else ())]

    def find_allowed(self, name: str) -> Skill | None:
        skill = self.registry.get(name)
        return skill if skill is not None and self._policy().is_enabled(skill) else None

    def _skill_tools(self, skill: Skill) -> list[BaseTool]:
        hit = self._cache.get(id(skill))
        if hit is not None and hit[0] is skill:
            return hit[1]
        tools = [make_tool(t, skill, timeout=self.tool_timeout,
                           max_call_timeout=self.max_call_timeout) for t in skill.tools]
        if len(self._cache) > 2 * len(self.registry) + 16:  # reloads left old skills behind
            current = {id(s) for s in self.registry.skills()}
            self._cache = {k: v for k, v in self._cache.items() if k in current}
        self._cache[id(skill)] = (skill, tools)
        return tools

    async def tools(self, skills: list[Skill] | None = None) -> list[BaseTool]:
        """The tools of `skills` (default: the allowed ones). Without an MCP skill among them
        the list is kept, and given again while `skills` are the same objects."""
        skills = self.allowed_skills() if skills is None else skills
        key: tuple[str | Skill, ...] = (self.loading, *skills)
        if self._static is not None and same_items(self._static[0], key):
            return list(self._static[1])
        out = await self._collect(skills)
        if all(s.mcp_server is None for s in skills) or (
                self.mcp_tools is None and self._given() is None):
            self._static = (key, list(out))
        return out

    async def _collect(self, skills: list[Skill]) -> list[BaseTool]:
        out: list[BaseTool] = []
        given = self._given()
        own = {id(s) for s in given.skills()} if given is not None else set()
        wanted = [s for s in skills if s.mcp_server is not None and
                  (id(s) in own or self.mcp_tools is not None)]
        # Every MCP server starts at once: two that hang cost one start timeout, not two.
        fetched = await asyncio.gather(*(self._source(s, given, own)(s) for s in wanted)) \
            if wanted else []
        mcp = {id(s): tools for s, tools in zip(wanted, fetched)}
        for skill in skills:
            out.extend(self._skill_tools(skill))
            if id(skill) in mcp:
                taken = {t.name for t in out}
                for tool in mcp[id(skill)]:
                    if tool.name not in taken:  # first one wins, as between skill files
                        self._mcp_owner[tool.name] = skill
                        out.append(tool)
        if any(s.format == "agent-skills" for s in skills):
            if self._skill_tools_pair is None:  # they look skills up when called
                self._skill_tools_pair = make_skill_tools(self.find_loadable,
                                                          lambda: self.decay_turns)
            out.extend(self._skill_tools_pair)
        if self.loading != "triggers" and any(_knowledge(s) for s in skills):
            if self._get_skill is None:
                self._get_skill = make_get_skill(self.find_loadable, self.loadable_names,
                                                 lambda: self.decay_turns)
            out.append(self._get_skill)
        return out

    def _source(self, skill: Skill, given: GivenTools | None, own: set[int]) -> MCPToolSource:
        """A given server's tools come from its session's manager, a skill's from the agent's."""
        if given is not None and id(skill) in own:
            return given.tools_for
        assert self.mcp_tools is not None  # `wanted` holds no other MCP skill without one
        return self.mcp_tools

    def loadable(self) -> list[Skill]:
        """The allowed skills whose bodies the model may load (get_skill / load_skill)."""
        return list(catalog_for(self.allowed_skills(), self.loading).loadable)

    def loadable_names(self) -> list[str]:
        return [load_name(s) for s in self.loadable()]

    def find_loadable(self, name: str) -> Skill | None:
        """A loadable skill by name or `location` (what a load call may say)."""
        canonical = skill_aliases(self.loadable()).get(name)
        return self.registry.get(canonical) if canonical else None

    def schema_tokens(self, tools: Sequence[BaseTool]) -> int:
        """Estimated tokens of the tool schemas sent with a call (kept while the tools are the
        same objects)."""
        hit = self._schema_tokens
        if hit is not None and same_items(hit[0], tools):
            return hit[1]
        total = sum(estimate_tokens(f"{t.name} {t.description} {json.dumps(t.args, default=str)}")
                    for t in tools)
        self._schema_tokens = (tuple(tools), total)
        return total

    def bind(self, model: Any, tools: Sequence[BaseTool]) -> Any:
        """`model.bind_tools(tools)`, reused while the model and every tool are the same
        objects as on the last call (tools are immutable once built, so the converted schemas
        cannot go stale)."""
        hit = self._bound
        if hit is not None and hit[0] is model and same_items(hit[1], tools):
            return hit[2]
        bound = model.bind_tools(list(tools))
        self._bound = (model, tuple(tools), bound)
        return bound

    def tools_by_tag(self, skills: list[Skill]) -> dict[str, list[str]]:
        """Tag -> names of the tools of `skills` carrying it (shared while `skills` are the
        same objects: read it, do not change it)."""
        if self._by_tag is not None and same_items(self._by_tag[0], skills):
            return self._by_tag[1]
        index: dict[str, list[str]] = {}
        for skill in skills:
            for tool in skill.tools:
                for tag in skill.tags:
                    index.setdefault(tag, []).append(tool.name)
        self._by_tag = (tuple(skills), index)
        return index

    def skill_for_tool(self, tool_name: str) -> Skill | None:
        return self.registry.skill_for_tool(tool_name) or self._mcp_owner.get(tool_name)

    def skill_tool(self, tool_name: str) -> SkillTool | None:
        """The tool block behind a tool name (None for MCP and built-in tools)."""
        skill = self.registry.skill_for_tool(tool_name)
        return next((t for t in skill.tools if t.name == tool_name), None) if skill else None


def same_items(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """The same objects in the same order (identity, not equality: cheap, and never fooled by
    two equal-looking skills of different folders)."""
    return len(a) == len(b) and all(map(is_, a, b))


def _knowledge(skill: Skill) -> bool:
    """A knowledge skill: a body sent only when triggered or loaded."""
    return bool(skill.body) and not skill.always_inject and skill.format != "agent-skills"
