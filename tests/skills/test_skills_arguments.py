"""A skill tool's arguments are checked against its JSON schema (jsonschema) before it runs."""

import json
from pathlib import Path

import pytest

from birdie_tui.skills import SkillTool, load_skills
from birdie_tui.tools.entrypoints import run_entrypoint
from birdie_tui.skills.arguments import ArgumentError, prepare_arguments, schema_problem

ECHO_PY = "def echo(**kwargs):\n    return kwargs\n"


def tool(entrypoint: str, schema: dict, name: str = "t") -> SkillTool:
    return SkillTool(name=name, description="d", entrypoint=entrypoint, schema=schema)


@pytest.fixture
def echo_dir(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(ECHO_PY)
    return tmp_path


async def test_a_wrong_type_never_reaches_the_shell(tmp_path, monkeypatch):
    """Arguments that fail the schema are an error result and the command never runs."""
    monkeypatch.chdir(tmp_path)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    t = tool("bash:touch ran; echo {n}", schema, name="run_bash")
    out = await run_entrypoint(t, {"n": "five; rm -rf ~"}, skill_dir=tmp_path)
    assert (out.content, out.error) == (
        "invalid arguments for run_bash: n: 'five; rm -rf ~' is not of type 'integer'", True)
    out = await run_entrypoint(t, {}, skill_dir=tmp_path)
    assert (out.content, out.error) == ("invalid arguments for run_bash: 'n' is a required property", True)
    assert not (tmp_path / "ran").exists()
    out = await run_entrypoint(t, {"n": 5}, skill_dir=tmp_path)
    assert (out.content, out.error) == ("5\n", False) and (tmp_path / "ran").exists()


@pytest.mark.parametrize("schema, args, message", [
    ({"properties": {"unit": {"enum": ["c", "f"]}}}, {"unit": "k"},
     "unit: 'k' is not one of ['c', 'f']"),
    ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "zz": 2},
     "Additional properties are not allowed ('zz' was unexpected)"),
    ({"properties": {"tags": {"type": "array", "items": {"type": "string"}}}}, {"tags": ["x", 3]},
     "tags.1: 3 is not of type 'string'"),
    ({"properties": {"n": {"type": "integer", "minimum": 1}}}, {"n": 0},
     "n: 0 is less than the minimum of 1"),
])
def test_validator_message_names_the_argument(schema, args, message):
    """A schema violation's message names the argument path and what is wrong."""
    with pytest.raises(ArgumentError) as info:
        prepare_arguments("tool_x", {"type": "object", **schema}, args)
    assert str(info.value) == f"invalid arguments for tool_x: {message}"


def test_a_long_bad_value_still_gives_one_short_line():
    """A huge invalid value still gives a single short error line."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    with pytest.raises(ArgumentError) as info:
        prepare_arguments("t", schema, {"n": "x\n" * 5_000})
    assert "\n" not in str(info.value) and len(str(info.value)) < 400


async def test_defaults_fill_missing_and_null_arguments_even_nested(echo_dir):
    """Schema defaults fill missing and null arguments, nested too; a null required one fails."""
    schema = {"type": "object", "required": ["q"], "properties": {
        "q": {"type": "string"},
        "limit": {"type": "integer", "default": 10},
        "opts": {"type": "object", "default": {}, "properties": {"lang": {"type": "string", "default": "en"}}},
    }}
    out = await run_entrypoint(tool("python:tools.echo", schema), {"q": "x", "limit": None}, skill_dir=echo_dir)
    assert json.loads(out.content) == {"q": "x", "limit": 10, "opts": {"lang": "en"}}
    out = await run_entrypoint(tool("python:tools.echo", schema), {"q": None}, skill_dir=echo_dir)
    assert out.error and out.content == "invalid arguments for t: 'q' is a required property"


def test_defaults_are_copies_and_a_defaulted_required_argument_passes():
    """Defaults are fresh copies each call, and a required argument with a default passes."""
    schema = {"type": "object", "required": ["items"], "properties": {"items": {"default": []}}}
    first = prepare_arguments("t", schema, {})
    first["items"].append(1)
    assert prepare_arguments("t", schema, {}) == {"items": []} and schema["properties"]["items"]["default"] == []


def test_the_draft_the_schema_declares_is_used():
    """Arguments are validated under the JSON Schema draft that $schema declares."""
    # `dependencies` is a draft-07 keyword (2020-12 split it and ignores the old name).
    base = {"type": "object", "properties": {"a": {}, "b": {}}, "dependencies": {"a": ["b"]}}
    assert prepare_arguments("t", base, {"a": 1}) == {"a": 1}
    with pytest.raises(ArgumentError, match="'b' is a dependency of 'a'"):
        prepare_arguments("t", {"$schema": "http://json-schema.org/draft-07/schema#", **base}, {"a": 1})


def test_invalid_schema_is_a_load_error_with_its_line(make_skill, skills_root, simple_skill):
    """An invalid tool schema is a load error with its file line; other skills still load."""
    path = make_skill("bad", """
        ---
        name: bad
        description: broken schema
        ---
        ## Tools

        ### weather
        description: Weather
        entrypoint: bash:echo {n}
        schema:
          type: object
          properties:
            n: {type: integr}
        """)
    make_skill("good", simple_skill("good", ("ok",)))
    result = load_skills([skills_root])
    assert [s.name for s in result.skills] == ["good"]
    (err,) = result.errors
    assert (err.path, err.line) == (str(path), 10)
    assert err.message.startswith("tool 'weather': invalid JSON schema: properties.n.type: 'integr'")


def test_schema_problem():
    """A valid schema has no problem; an invalid one reports its first problem by path."""
    assert schema_problem({"type": "object", "properties": {"n": {"type": "integer"}}}) is None
    assert schema_problem({"type": "object", "properties": {"n": {"minimum": "1"}}}) == \
        "properties.n.minimum: '1' is not of type 'number'"


async def test_a_broken_schema_built_in_code_fails_the_call_not_the_app(tmp_path):
    """A tool whose schema is invalid fails its call with an error result, not an exception."""
    t = tool("bash:echo hi", {"type": "object", "properties": {"n": {"type": "integr"}}})
    out = await run_entrypoint(t, {"n": 1}, skill_dir=tmp_path)
    assert out.error and out.content.startswith("cannot check arguments for t: its schema is invalid")
