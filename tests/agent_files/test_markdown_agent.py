"""Markdown agent files (Claude Code, OpenCode, goose, deepagents, agent.md): frontmatter, the
body as system prompt, one free-text `task`; other tools' keys kept, never an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from birdie_tui.agent_files.markdown_agent import TASK, parse_markdown_agent
from birdie_tui.agent_files.models import AgentFileError
from birdie_tui.agent_files.render import input_schema, render_prompt

PATH = Path("/p/.agents/agents/code-reviewer.md")

CLAUDE = """\
---
name: code-reviewer
description: Reviews code for quality. Use after writing code.
tools: Read, Grep, Glob
model: inherit
color: blue
---
You are a senior code reviewer.

Check naming and tests.
"""


def fails(text: str) -> tuple[int | None, str]:
    with pytest.raises(AgentFileError) as caught:
        parse_markdown_agent(text, PATH)
    return caught.value.problem.line, caught.value.problem.message


def test_a_claude_code_agent():
    """Claude Code's file: tools as text, `inherit` is the session's model, `color` kept."""
    agent = parse_markdown_agent(CLAUDE, PATH)
    assert (agent.name, agent.format, agent.model, agent.vendor) == \
        ("code-reviewer", "markdown", None, None)
    assert agent.tools == ("Read", "Grep", "Glob") and agent.allowed_skills == ()
    assert agent.system_prompt == "You are a senior code reviewer.\n\nCheck naming and tests."
    assert agent.extra == {"color": "blue"} and agent.inputs == (TASK,)
    assert input_schema(agent) == {"type": "object", "required": ["task"], "properties": {
        "task": {"type": "string", "description": "What the agent should do"}}}
    assert render_prompt(agent, {"task": "look at {{ x }} in a.py"}) == "look at {{ x }} in a.py"


def test_an_opencode_agent_with_its_own_servers():
    """OpenCode's `vendor/model`, `mode` kept; skills as a list; mcp entries shape-checked."""
    agent = parse_markdown_agent("""\
---
description: Writes docs
model: anthropic/claude-sonnet-4-20250514
temperature: 0.1
mode: subagent
tools: {write: false}
skills: [files, git]
mcp:
  - name: fs
    command: [npx, -y, server-fs]
    env: {ROOT: /tmp}
  - name: web
    url: http://127.0.0.1:9/mcp
---
Write docs.
""", Path("/p/docs-writer.md"))
    assert (agent.name, agent.vendor, agent.model, agent.temperature) == \
        ("docs-writer", "anthropic", "claude-sonnet-4-20250514", 0.1)
    assert agent.allowed_skills == ("files", "git") and agent.tools == ()
    assert agent.extra == {"mode": "subagent", "tools": {"write": False}}
    assert [m["name"] for m in agent.mcp] == ["fs", "web"]


@pytest.mark.parametrize(("model", "vendor", "name"), [
    ("openai:gpt-4o", "openai", "gpt-4o"), ("google/gemini-2.5-pro", "gemini", "gemini-2.5-pro"),
    ("llama3:8b", None, "llama3:8b"), ("meta-llama/llama-3", None, "meta-llama/llama-3"),
    ("sonnet", None, "sonnet"), ("", None, None)])
def test_model_names(model, vendor, name):
    """A vendor Birdie knows in front is split off; anything else is all model name."""
    agent = parse_markdown_agent(f"---\ndescription: d\nmodel: '{model}'\n---\nx\n", PATH)
    assert (agent.vendor, agent.model) == (vendor, name)


@pytest.mark.parametrize(("text", "line", "words"), [
    ("no frontmatter\n", 1, "no YAML frontmatter"),
    ("---\ndescription: d\n", 1, "not closed"),
    ("---\nname: x\n---\nbody\n", 1, "missing required field 'description'"),
    ("---\nname: a b\ndescription: d\n---\n", 2, "cannot be a tool name"),
    ("---\ndescription: d\ntools: [a, 1]\n---\n", 3, "'tools' must be"),
    ("---\ndescription: d\nmcp: server\n---\n", 3, "list of servers"),
    ("---\ndescription: d\nmcp:\n  - command: x\n---\n", 3, "needs a 'name'"),
    ("---\ndescription: d\nmcp:\n  - name: a\n---\n", 3, "either 'command'"),
    ("---\ndescription: d\nmcp:\n  - {name: a, url: u, command: c}\n---\n", 3, "either"),
    ("---\ndescription: d\nmcp:\n  - {name: a, command: c, args: x}\n---\n", 3, "'args'"),
    ("---\ndescription: d\nmcp:\n  - {name: a, command: c, env: [x]}\n---\n", 3, "'env'"),
    ("---\ndescription: d\nmcp:\n  - {name: a, command: c, shell: yes}\n---\n", 3, "unknown key"),
    ("---\ndescription: d\nmcp:\n  - {name: a, command: c}\n  - {name: a, url: u}\n---\n", 3,
     "used twice"),
    ("---\ndescription: d\ntemperature: hot\n---\n", 3, "must be a number"),
    ("---\n- a\n---\n", 2, "must be a YAML mapping"),
])
def test_problems_name_their_line(text, line, words):
    """Each broken Markdown agent file is one problem at the line of the key at fault."""
    got, message = fails(text)
    assert words in message and got == line


def test_the_name_defaults_to_the_stem_and_crlf_is_fine():
    """With no `name` the file's stem names the agent; CRLF line ends read like LF."""
    agent = parse_markdown_agent("---\r\ndescription: d\r\n---\r\nBe brief.\r\n", PATH)
    assert (agent.name, agent.system_prompt, agent.prompt) == ("code-reviewer", "Be brief.",
                                                               "{{ task }}")
