"""The in-memory index of loaded skills: by name and by tool name."""

from __future__ import annotations

from collections.abc import Iterator

from .models import LoadResult, Skill, SkillError, SkillTool


class SkillRegistry:
    """Skills from a `LoadResult`, looked up case-insensitively; `replace` swaps everything."""

    def __init__(self, result: LoadResult | None = None):
        self._skills: dict[str, Skill] = {}
        self._sorted: list[Skill] = []
        self.version = 0  # bumped by every `replace`: caches over the contents key on it
        self._tools: dict[str, SkillTool] = {}
        self._tool_owner: dict[str, Skill] = {}
        self.errors: list[SkillError] = []
        self.replace(result or LoadResult())

    def replace(self, result: LoadResult) -> None:
        """Swap the contents wholesale (live reload)."""
        skills: dict[str, Skill] = {}
        tools: dict[str, SkillTool] = {}
        owner: dict[str, Skill] = {}
        for skill in result.skills:
            if skill.name.lower() in skills:
                continue
            skills[skill.name.lower()] = skill
            for tool in skill.tools:
                if tool.name in tools:
                    continue
                tools[tool.name] = tool
                owner[tool.name] = skill
        self._skills, self._tools, self._tool_owner = skills, tools, owner
        self._sorted = sorted(skills.values(), key=lambda s: s.name.lower())
        self.errors = list(result.errors)
        self.version += 1

    def skills(self) -> list[Skill]:
        """Every skill, by name (sorted once per `replace`; the list is the caller's)."""
        return list(self._sorted)

    def names(self) -> list[str]:
        return [s.name for s in self.skills()]

    def get(self, name: str) -> Skill | None:
        return self._skills.get(name.lower())

    def tool(self, name: str) -> SkillTool | None:
        return self._tools.get(name)

    def skill_for_tool(self, tool_name: str) -> Skill | None:
        return self._tool_owner.get(tool_name)

    def __len__(self) -> int:
        return len(self._skills)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._skills

    def __iter__(self) -> Iterator[Skill]:
        return iter(self.skills())
