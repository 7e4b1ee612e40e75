"""Newer Birdie's (0.15) skill fields: frontmatter `location`, tool-block `timeout:`/`retries:`.

The real Birdie 0.15.1 reads the same files the same way: tests/compat/test_birdie_0151.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import ToolException

from birdie_tui.skills import SkillParseError, parse_skill_text
from birdie_tui.tools.adapter import make_tool

SKILL = """\
---
name: Deploy
description: How we deploy.
location: guides/deploy
---
## Tools

### slow_call
description: Calls a slow thing.
entrypoint: bash:sleep {seconds}
timeout: 2.5
retries: 3
schema:
  type: object
  properties:
    seconds:
      type: number
    timeout:
      type: integer
      description: a schema property of that name is an argument, not the tool's timeout
    retries:
      type: integer

### plain
description: Nothing set.
entrypoint: bash:echo hi
"""


def parse(text: str):
    return parse_skill_text(text, Path("/s/deploy/SKILL.MD"))


def errors_of(text: str) -> list[str]:
    with pytest.raises(SkillParseError) as info:
        parse(text)
    return [str(e) for e in info.value.errors]


def test_location_timeout_and_retries_are_read():
    """`location` is kept; `timeout:`/`retries:` become the tool's; schema properties stay args."""
    skill = parse(SKILL)
    assert skill.location == "guides/deploy"
    slow, plain = skill.tools
    assert (slow.timeout_s, slow.retries) == (2.5, 3)
    assert isinstance(slow.timeout_s, float)
    assert list(slow.schema["properties"]) == ["seconds", "timeout", "retries"]
    assert (plain.timeout_s, plain.retries) == (None, None)
    assert parse(SKILL.replace("location: guides/deploy\n", "")).location is None


def test_whole_seconds_and_zero_retries_are_accepted():
    """`timeout: 30` is 30.0 seconds and `retries: 0` means no re-attempt (not unset)."""
    skill = parse(SKILL.replace("timeout: 2.5", "timeout: 30").replace("retries: 3", "retries: 0"))
    assert (skill.tools[0].timeout_s, skill.tools[0].retries) == (30.0, 0)


@pytest.mark.parametrize("value, message", [
    ('""', "field 'location' must not be empty"),
    ("", "field 'location' must not be empty"),
    ("[a, b]", "field 'location' must be a string, got a list"),
])
def test_a_bad_location_is_an_error_at_its_line(value, message):
    """An empty or non-string `location` is an error at its frontmatter line."""
    errors = errors_of(SKILL.replace("location: guides/deploy", f"location: {value}".rstrip()))
    assert len(errors) == 1 and errors[0].startswith(f"/s/deploy/SKILL.MD:4: {message}"), errors


@pytest.mark.parametrize("line, message", [
    ("timeout: 0", "tool 'slow_call': timeout must be a number of seconds > 0, got 0"),
    ("timeout: -3", "tool 'slow_call': timeout must be a number of seconds > 0, got -3"),
    ("timeout: 30s", "tool 'slow_call': timeout must be a number of seconds > 0, got '30s'"),
    ("timeout:", "tool 'slow_call': timeout must be a number of seconds > 0, got None"),
    ("timeout: .inf", "tool 'slow_call': timeout must be a number of seconds > 0, got inf"),
    ("retries: -1", "tool 'slow_call': retries must be a whole number >= 0, got -1"),
    ("retries: 1.5", "tool 'slow_call': retries must be a whole number >= 0, got 1.5"),
    ("retries: yes", "tool 'slow_call': retries must be a whole number >= 0, got True"),
])
def test_a_bad_timeout_or_retries_is_an_error_at_its_line(line, message):
    """An invalid `timeout:` or `retries:` is a SkillError naming the tool, at that line."""
    key = line.split(":")[0]
    text = SKILL.replace("timeout: 2.5" if key == "timeout" else "retries: 3", line)
    line_no = 11 if key == "timeout" else 12
    assert errors_of(text) == [f"/s/deploy/SKILL.MD:{line_no}: {message}"]


async def test_the_tools_own_timeout_bounds_its_call():
    """A tool's `timeout:` replaces the engine-wide tool timeout for that tool."""
    skill = parse(SKILL.replace("timeout: 2.5", "timeout: 0.2"))
    tool = make_tool(skill.tools[0], skill, timeout=120)
    with pytest.raises(ToolException, match=r"timed out after 0\.2s"):
        await tool.ainvoke({"seconds": 5})


async def test_without_its_own_timeout_the_engine_timeout_applies():
    """A tool with no `timeout:` keeps the engine-wide tool timeout."""
    skill = parse(SKILL.replace("timeout: 2.5\n", ""))
    assert skill.tools[0].timeout_s is None
    tool = make_tool(skill.tools[0], skill, timeout=0.3)
    with pytest.raises(ToolException, match=r"timed out after 0\.3s"):
        await tool.ainvoke({"seconds": 5})
