"""`load_skill` / `read_skill_file`: how the model activates Agent Skills (progressive disclosure).

A loaded skill's body goes into the system prompt of every later call (reason `loaded`); the tool
result itself stays short so the body is not carried twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, ToolException

from birdie_tui.skills.models import Skill
from birdie_tui.skills.resources import read_skill_file

LOAD_SKILL = "load_skill"
READ_SKILL_FILE = "read_skill_file"


def make_skill_tools(find: Callable[[str], Skill | None]) -> list[BaseTool]:
    """Tools over the Agent Skills that `find` resolves (it returns only allowed ones)."""

    def _skill(name: str) -> Skill:
        skill = find(name)
        if skill is None or skill.format != "agent-skills":
            raise ToolException(f"no enabled Agent Skill named {name!r}")
        return skill

    async def load_skill(name: str) -> str:
        skill = _skill(name)
        lines = [f"Loaded skill {skill.name!r}: its instructions are now in your system prompt."]
        if skill.resources:
            lines.append("Resource files (read them with read_skill_file):")
            lines.extend(f"- {path}" for path in skill.resources)
        return "\n".join(lines)

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


def loaded_skill_names(messages: Sequence[BaseMessage]) -> list[str]:
    """Skills the model loaded earlier in this session: successful `load_skill` calls (one
    pass over the history: it runs before every model call)."""
    ok: set[str] = set()
    calls: list[dict] = []
    for msg in messages:
        if isinstance(msg, ToolMessage):
            if msg.name == LOAD_SKILL and msg.status != "error":
                ok.add(msg.tool_call_id)
        elif isinstance(msg, AIMessage) and msg.tool_calls:
            calls.extend(c for c in msg.tool_calls if c["name"] == LOAD_SKILL)
    names: list[str] = []
    for call in calls:
        if call.get("id") in ok:
            name = str(call["args"].get("name", ""))
            if name and name not in names:
                names.append(name)
    return names
