"""Property: whatever the input, the parser raises nothing but SkillParseError."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from birdie_tui.skills import Skill, SkillParseError, parse_skill_file, parse_skill_text

YAMLISH = st.text(alphabet=st.sampled_from(list("abc:-#|>[]{}'\"\n\t *&!%@`,?.\r\ufeff")) | st.characters(), max_size=300)


def _check(text: str, name: str = "SKILL.MD") -> None:
    try:
        result = parse_skill_text(text, Path("/tmp/x") / name)
    except SkillParseError as exc:
        assert exc.errors and all(isinstance(e.message, str) and e.message for e in exc.errors)
    else:
        assert isinstance(result, Skill)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.sampled_from(["SKILL.MD", "SKILL.md"]))
def test_arbitrary_text(text, name):
    """Arbitrary text gives a skill or a SkillParseError with messages, never another exception."""
    _check(text, name)


@settings(max_examples=400, deadline=None)
@given(YAMLISH, st.sampled_from(["", "description: d\n"]), st.sampled_from(["SKILL.MD", "SKILL.md"]))
def test_arbitrary_text_after_valid_prefix(tail, desc, name):
    """Arbitrary YAML-ish text after a valid frontmatter start raises only SkillParseError."""
    _check("---\nname: x\n" + desc + tail, name)


@settings(max_examples=300, deadline=None)
@given(YAMLISH)
def test_arbitrary_tool_blocks(block):
    """Arbitrary tool and permissions sections raise nothing but SkillParseError."""
    _check("---\nname: x\ndescription: d\n---\n## Tools\n### t\n" + block)
    _check("---\nname: x\ndescription: d\n---\n## Permissions\n" + block)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_arbitrary_bytes_in_a_file(data):
    """Arbitrary bytes in a SKILL.MD file raise nothing but SkillParseError."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "SKILL.MD"
        p.write_bytes(b"---\nname: x\n" + data if data[:1] == b"!" else data)
        try:
            parse_skill_file(p)
        except SkillParseError:
            pass
