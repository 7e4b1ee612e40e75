"""SkillTool -> LangChain tool."""

from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import ToolException

from birdie_tui.skills import Skill, SkillTool
from birdie_tui.tools.adapter import make_tool


def _skill(tmp_path: Path, entrypoint: str) -> tuple[Skill, SkillTool]:
    schema = {"type": "object", "properties": {"x": {"type": "string"}, "n": {"type": "integer", "default": 2}},
              "required": ["x"]}
    t = SkillTool(name="echo_x", description="Echo x", entrypoint=entrypoint, schema=schema, skill="S")
    return Skill(name="S", description="d", path=tmp_path / "SKILL.MD", tools=[t]), t


async def test_ainvoke_tool_call_returns_tool_message(tmp_path):
    """A skill tool becomes a LangChain tool: a tool call gives a ToolMessage, args a string."""
    skill, t = _skill(tmp_path, "bash:printf '%s-%s' {x} {n}")
    lc = make_tool(t, skill)
    assert lc.name == "echo_x" and lc.description == "Echo x" and lc.metadata == {"skill": "S"}
    assert lc.args["n"]["default"] == 2
    msg = await lc.ainvoke({"args": {"x": "a b"}, "name": "echo_x", "id": "call1", "type": "tool_call"})
    assert isinstance(msg, ToolMessage) and msg.content == "a b-2" and msg.tool_call_id == "call1"
    assert await lc.ainvoke({"x": "plain"}) == "plain-2"


async def test_errors_raise_tool_exception(tmp_path):
    """A failing command or invalid arguments raise ToolException with a clear message."""
    skill, t = _skill(tmp_path, "bash:echo {x} >&2; exit 4")
    lc = make_tool(t, skill)
    with pytest.raises(ToolException, match="exited with code 4"):
        await lc.ainvoke({"args": {"x": "oops"}, "name": "echo_x", "id": "c", "type": "tool_call"})
    with pytest.raises(ToolException, match="^invalid arguments for echo_x: 'x' is a required property$"):
        await lc.ainvoke({"args": {}, "name": "echo_x", "id": "c", "type": "tool_call"})


def test_schema_export(tmp_path):
    """The LangChain tool exports the skill's JSON schema as an OpenAI function."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    skill, t = _skill(tmp_path, "bash:true")
    lc = make_tool(t, skill)
    fn = convert_to_openai_tool(lc)["function"]
    assert fn["name"] == "echo_x" and fn["parameters"]["required"] == ["x"]


def test_package_import_is_light():
    """Importing birdie_tui.skills loads no LangChain, LangGraph or Textual module."""
    import subprocess
    import sys

    code = ("import sys, birdie_tui.skills; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('langchain_core', 'textual', 'langgraph')]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
