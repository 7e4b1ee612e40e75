"""Birdie's AGENT.MD: what 0.15.1 reads well reads the same here, and what it would crash on or
read as something else is one problem with the file and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from birdie_tui.agent_files.agent_md import parse_agent_md
from birdie_tui.agent_files.models import AgentFileError, AgentParam

PATH = Path("/agents/x/AGENT.MD")
GOOD = """\
---
name: Reviewer
version: 2.1
description: Reviews a diff.
vendor: openai
model: gpt-4o-mini
temperature: 0.2
max_tokens: "800"
enabled_by_default: true
allowed_skills: [git, files]
recursion_limit: 12
max_tool_repetitions: 2
triggers: [review]
---

## Input

### diff
type: string
description: The diff to review
required: true

### strict
type: boolean
description: Fail on any nit
required: false

## Output

### verdict
type: string
description: ok or not ok

## Prompt

Review this ({{ strict }}):

{{ diff }}
"""


def problem(text: str) -> tuple[int | None, str]:
    with pytest.raises(AgentFileError) as caught:
        parse_agent_md(text, PATH)
    assert caught.value.problem.path == PATH
    return caught.value.problem.line, caught.value.problem.message


def test_every_field_is_read():
    """Every frontmatter field, the parameters and the stripped prompt; other keys in extra."""
    agent = parse_agent_md(GOOD, PATH)
    assert (agent.name, agent.version, agent.description) == ("Reviewer", "2.1", "Reviews a diff.")
    assert (agent.vendor, agent.model, agent.temperature, agent.max_tokens) == \
        ("openai", "gpt-4o-mini", 0.2, 800)
    assert agent.enabled_by_default and agent.allowed_skills == ("git", "files")
    assert (agent.recursion_limit, agent.max_tool_repetitions) == (12, 2)
    assert agent.inputs == (AgentParam("diff", "string", "The diff to review", True),
                            AgentParam("strict", "boolean", "Fail on any nit", False))
    assert agent.outputs == (AgentParam("verdict", "string", "ok or not ok", True),)
    assert agent.prompt == "Review this ({{ strict }}):\n\n{{ diff }}"
    assert agent.extra == {"triggers": ["review"]} and agent.format == "AGENT.MD"


def test_defaults_as_in_birdie():
    """Off by default, 25 steps, 3 repetitions, no inputs, a parameter required unless told."""
    agent = parse_agent_md("---\nname: A\ndescription: d\n---\n## Input\n### q\n"
                           "description: a question\n## Prompt\n{{ q }}\n", PATH)
    assert (agent.enabled_by_default, agent.recursion_limit, agent.max_tool_repetitions,
            agent.version, agent.allowed_skills) == (False, 25, 3, "1.0.0", ())
    assert agent.inputs == (AgentParam("q", "string", "a question", True),)


@pytest.mark.parametrize(("text", "line", "words"), [
    ("no frontmatter\n## Prompt\nx\n", 1, "no YAML frontmatter"),
    ("---\nname: [A\ndescription: d\n---\n## Prompt\nx\n", 3, "YAML error"),
    ("---\n- a\n- b\n---\n## Prompt\nx\n", 1, "must be a YAML mapping"),
    ("---\n---\n## Prompt\nx\n", 1, "frontmatter is empty"),
    ("---\ndescription: d\n---\n## Prompt\nx\n", 1, "missing required field 'name'"),
    ("---\nname: A\n---\n## Prompt\nx\n", 1, "missing required field 'description'"),
    ("---\nname: A\ndescription: d\n---\n## Input\n", None, "no '## Prompt' section"),
    ("---\nname: A\ndescription: d\nrecursion_limit: ten\n---\n## Prompt\nx\n", 4,
     "'recursion_limit' must be a whole number"),
    ("---\nname: A\ndescription: d\nrecursion_limit: 2.5\n---\n## Prompt\nx\n", 4,
     "whole number"),
    ("---\nname: A\ndescription: d\nrecursion_limit: 0\n---\n## Prompt\nx\n", 4, "at least 1"),
    ("---\nname: My Agent\ndescription: d\n---\n## Prompt\nx\n", 2, "cannot be a tool name"),
    ("---\nname: 7\ndescription: d\n---\n## Prompt\nx\n", 2, "must be text"),
    ("---\nname: A\ndescription: d\nenabled_by_default: 'false'\n---\n## Prompt\nx\n", 4,
     "true or false"),
    ("---\nname: A\ndescription: d\nallowed_skills: git\n---\n## Prompt\nx\n", 4, "YAML list"),
    ("---\nname: A\ndescription: d\nallowed_skills:\n---\n## Prompt\nx\n", 4, "YAML list"),
    ("---\nname: A\ndescription: d\nmodel: 4\n---\n## Prompt\nx\n", 4, "must be text"),
    ("---\nname: A\ndescription: a---b\n---\n## Prompt\nx\n", 3, "inside a line"),
    ("---\nname: A\ndescription: d\n---\n## Input\n### my-param\ntype: string\n## Prompt\nx\n", 6,
     "drops the input heading '### my-param'"),
    ("---\nname: A\ndescription: d\n---\n## Input\n### q \ntype: string\n## Prompt\nx\n", 6,
     "drops the input heading"),
    ("---\r\nname: A\r\ndescription: d\r\n---\r\n## Input\r\n### q\r\ntype: string\r\n"
     "## Prompt\r\nx\r\n", 6, "CRLF"),
    ("---\nname: A\ndescription: d\n---\n## Output\n### n\ntype: list\n## Prompt\nx\n", 6,
     "type 'list' is not one of"),
    ("---\nname: A\ndescription: d\n---\n## Input\n### n\nrequired: yes\n## Prompt\nx\n", 6,
     "required must be true or false"),
    ("---\nname: A\ndescription: d\n---\n## Input\n### n\ntype: string\n### n\n"
     "type: string\n## Prompt\nx\n", 8, "declared twice"),
    ("---\nname: A\ndescription: d\n---\n## Input\n### n\n## Prompt\nx\n", 6,
     "section's last line"),
    ("---\nname: A\ndescription: d\n---\n## Input\n### n\n### m\ntype: string\n## Prompt\nx\n", 7,
     "follows another '###' heading"),
    ("---\nname: A\ndescription: d\n---\n## Input\n### Prompt\ntype: string\n", 6,
     "'### Prompt' heading"),
    ("---\nname: A\ndescription: d\n---\n## Prompt\n\n", 5, "is empty"),
    ("---\nname: A\ndescription: d\n---\n## Prompt\nx\x00y\n", 6, "NUL byte"),
])
def test_what_birdie_crashes_on_or_mangles_is_one_problem(text, line, words):
    """Each: the line it is on and a sentence saying what to fix."""
    got_line, message = problem(text)
    assert words in message
    assert got_line == line


def test_a_yaml_bomb_is_refused_at_its_line():
    """Aliases that expand past the skills' limit are refused, not expanded."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]"
              for p, c in zip("abcdefgh", "bcdefghi")]
    text = "---\nname: A\ndescription: d\n" + "\n".join(lines) + "\n---\n## Prompt\nx\n"
    line, message = problem(text)
    assert "alias bomb" in message and line is not None and 4 < line < 14


def test_crlf_without_parameters_reads_as_birdie_reads_it():
    """A CRLF file with no parameters loads (0.15.1 reads it too): the prompt keeps its inner
    carriage returns, as there."""
    agent = parse_agent_md("---\r\nname: A\r\ndescription: d\r\n---\r\n## Prompt\r\nline 1\r\n"
                           "line 2\r\n", PATH)
    assert agent.prompt == "line 1\r\nline 2" and agent.description == "d"


def test_quirks_kept():
    """0.15.1's quirks on files it reads: a parameter's description is one line (one that runs
    on is dropped); `## Prompt` ends at the next `## `; numbers as text are numbers."""
    text = textwrap.dedent("""\
        ---
        name: A
        description: d
        temperature: "0.5"
        max_tokens: 100.0
        ---
        ## Input
        ### q
        description: first
          second
        type: integer
        ## Prompt
        Do {{ q }}.
        ## Notes
        not the prompt
        """)
    agent = parse_agent_md(text, PATH)
    assert agent.inputs == (AgentParam("q", "integer", "", True),)
    assert agent.prompt == "Do {{ q }}."
    assert (agent.temperature, agent.max_tokens) == (0.5, 100)
