"""A tool schema valid by its shape alone is accepted without `jsonschema`, and only then."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, SchemaError

from birdie_tui.skills.arguments import schema_problem
from birdie_tui.skills.plain_schema import plainly_valid

from ..conftest import clean_env

KEYWORDS = ["type", "description", "title", "format", "default", "const", "enum", "examples",
            "properties", "required", "items", "additionalProperties", "uniqueItems", "minimum",
            "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
            "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
            "pattern", "$ref", "$schema", "not_a_keyword"]
TYPE_NAMES = ["string", "number", "integer", "boolean", "object", "array", "null", "integr", "int"]

scalars = st.one_of(
    st.integers(-3, 3), st.floats(-2, 2, allow_nan=False), st.booleans(), st.none(),
    st.sampled_from(TYPE_NAMES), st.text(max_size=4))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(KEYWORDS + ["a", "b"]), inner, max_size=3)),
    max_leaves=12)


NUMBERS = st.one_of(st.integers(-2, 5), st.floats(-2, 2, allow_nan=False), st.booleans())


def near_right(key: str, schemas: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Values of the right shape for `key`, and values just off it (a negative count, a bool
    for a number, an unknown type name, a repeated name, a bad regex)."""
    shapes: dict[str, st.SearchStrategy[Any]] = {
        "type": st.one_of(st.sampled_from(TYPE_NAMES), st.lists(st.sampled_from(TYPE_NAMES), max_size=3)),
        "properties": st.dictionaries(st.text(max_size=3), schemas, max_size=3),
        "required": st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
        "items": schemas,
        "additionalProperties": st.one_of(st.booleans(), schemas),
        "enum": st.lists(values, max_size=3), "examples": st.lists(values, max_size=3),
        "pattern": st.sampled_from(["^a+$", "(", "[a-"]),
        "$ref": st.just("#"), "$schema": st.just("https://json-schema.org/draft/2020-12/schema"),
    }
    return st.one_of(shapes.get(key, NUMBERS), st.text(max_size=3), values)


schemas = st.recursive(
    st.fixed_dictionaries({}, optional={"type": st.sampled_from(TYPE_NAMES)}),
    lambda inner: st.lists(
        st.sampled_from(KEYWORDS).flatmap(lambda key: st.tuples(st.just(key), near_right(key, inner))),
        max_size=4).map(dict),
    max_leaves=10)


def metaschema_accepts(schema: dict[str, Any]) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas)
def test_plainly_valid_only_where_jsonschema_agrees(schema):
    """Whatever the shape alone calls valid, the 2020-12 metaschema accepts."""
    vouched = plainly_valid(schema)
    event(f"vouched for: {vouched}")
    if vouched:
        assert metaschema_accepts(schema), schema


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"path": {"type": "string", "description": "where"},
                                      "n": {"type": "integer", "default": 3, "minimum": 0}},
     "required": ["path"]},
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                               "uniqueItems": True, "maxItems": 5}},
     "additionalProperties": False},
    {"type": ["string", "null"], "enum": ["a", None], "title": "t"},
])
def test_common_tool_schemas_take_the_short_path(schema):
    """The schemas skills write (typed properties, required, defaults) need no jsonschema."""
    assert plainly_valid(schema) and metaschema_accepts(schema)


@pytest.mark.parametrize("schema, problem", [
    ({"type": "object", "properties": {"n": {"type": "integr"}}}, "is not valid under any"),
    ({"type": "object", "properties": {"p": {"type": "string", "pattern": "("}}}, "is not a 'regex'"),
    ({"type": "object", "required": ["a", "a"]}, "has non-unique elements"),
    ({"type": "object", "properties": {"n": {"minLength": -1}}}, "is less than the minimum"),
    ({"type": "object", "properties": {"n": {"minLength": True}}}, "is not of type 'integer'"),
])
def test_what_the_shape_cannot_vouch_for_goes_to_jsonschema(schema, problem):
    """Bad schemas are not vouched for, and jsonschema still names what is wrong."""
    assert not plainly_valid(schema)
    assert problem in (schema_problem(schema) or "")


def test_loading_the_bundled_skills_never_imports_jsonschema(isolated_home):
    """The TUI's start (the bundled skills' schemas) leaves jsonschema unimported; a schema
    with a keyword the shape cannot vouch for still gets the real check."""
    skill = isolated_home / "skills" / "grep"
    skill.mkdir(parents=True)
    (skill / "SKILL.MD").write_text(textwrap.dedent("""\
        ---
        name: grep
        description: search
        ---

        ## Tools

        ### grep_it
        description: grep
        entrypoint: bash:grep -rn -- {word} .
        schema:
          type: object
          properties:
            word:
              type: string
              pattern: "^[a-z]+$"
        """))
    code = textwrap.dedent(f"""\
        import sys
        from pathlib import Path
        from birdie_tui.skills.bundled import bundled_skills_dir
        from birdie_tui.skills.loader import load_skills
        result = load_skills([bundled_skills_dir()])
        assert len(result.skills) >= 7 and not result.errors, result.errors
        print("bundled", "jsonschema" in sys.modules)
        result = load_skills([Path({str(skill.parent)!r})])
        assert [s.name for s in result.skills] == ["grep"], result.errors
        print("pattern", "jsonschema" in sys.modules)
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(isolated_home), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["bundled", "False", "pattern", "True"]
