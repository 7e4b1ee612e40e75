"""`get_skill` / `load_skill` / `read_skill_file`: how the model loads skills (progressive
disclosure, as upstream Birdie 0.15.1 does it).

`get_skill(skill_name)` loads a knowledge skill's body, `load_skill(name)` an Agent Skill's (each
accepts the other's skills: they are aliases). A loaded body goes into the system prompt of
the following calls for a lease of user turns (`agent.lease`); the tool result itself stays a
short acknowledgement so the body is not carried twice.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from birdie_tui.skills.models import Skill
from birdie_tui.skills.resources import read_skill_file

GET_SKILL = "get_skill"
LOAD_SKILL = "load_skill"
READ_SKILL_FILE = "read_skill_file"


def make_get_skill(find: Callable[[str], Skill | None], names: Callable[[], list[str]],
                   decay_turns: Callable[[], int]) -> BaseTool:
    """Upstream's `get_skill`: `find` resolves a name or location to a loadable skill (None
    when it is not enabled or has no body), `names` lists the loadable identifiers."""

    async def get_skill(skill_name: str) -> str:
        skill = find(skill_name)
        if skill is None:
            raise ToolException(f"Skill {skill_name!r} is not available. "
                                f"Available knowledge skills: {names()}")
        return _acknowledge(skill, decay_turns())

    return StructuredTool.from_function(
        coroutine=get_skill,
        name=GET_SKILL,
        description=("Load the full instructions for a knowledge skill into the system prompt. "
                     "Pass the name shown in [load: <name>] in the skills list. Loaded skills "
                     f"stay for {decay_turns()} turns; call again to refresh."),
        args_schema={
            "type": "object",
            "properties": {"skill_name": {"type": "string",
                                          "description": "the name shown in [load: <name>]"}},
            "required": ["skill_name"],
        },
    )


def _acknowledge(skill: Skill, decay_turns: int) -> str:
    lines = [f"Skill {skill.name!r} loaded: its instructions are now in your system prompt "
             f"under '--- {skill.name} skill ... ---' for {decay_turns} turns."]
    if skill.resources:
        lines.append("Resource files (read them with read_skill_file):")
        lines.extend(f"- {path}" for path in skill.resources)
    return "\n".join(lines)


def make_skill_tools(find: Callable[[str], Skill | None],
                     decay_turns: Callable[[], int] = lambda: 5) -> list[BaseTool]:
    """Tools over the Agent Skills that `find` resolves (it returns only allowed ones)."""

    def _skill(name: str) -> Skill:
        skill = find(name)
        if skill is None or not skill.body:
            raise ToolException(f"no enabled Agent Skill named {name!r}")
        return skill

    async def load_skill(name: str) -> str:
        return _acknowledge(_skill(name), decay_turns())

    async def read_file(name: str, path: str) -> str:
        skill = _skill(name)
        try:
            return read_skill_file(skill, path)
        except (ValueError, OSError) as exc:
            raise ToolException(str(exc)) from exc

    return [
        StructuredTool.from_function(
            coroutine=load_skill,
            name=LOAD_SKILL,
            description="Load an Agent Skill by name: its instructions join your context.",
            args_schema={
                "type": "object",
                "properties": {"name": {"type": "string", "description": "skill name"}},
                "required": ["name"],
            },
        ),
        StructuredTool.from_function(
            coroutine=read_file,
            name=READ_SKILL_FILE,
            description="Read a resource file (e.g. references/x.md) inside an Agent Skill's folder.",
            args_schema={
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "skill name"},
                    "path": {"type": "string", "description": "path relative to the skill folder"},
                },
                "required": ["name", "path"],
            },
        ),
    ]
