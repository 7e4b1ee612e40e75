"""AGENT.MD files read here as the real Birdie 0.15.1 reads them: its own parser, schema,
prompt renderer and output check run in its cached venv (tests/compat/conftest.py) beside
ours, compared field by field, over its bundled Summarizer and files written for the test."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from birdie_tui.agent_files.agent_md import parse_agent_md
from birdie_tui.agent_files.models import AgentDef, AgentFileError
from birdie_tui.agent_files.render import input_schema, parse_output, render_prompt

from ..compat.conftest import InstallError, _venv_env, ensure_birdie_venv

pytestmark = pytest.mark.compat

ORACLE = Path(__file__).with_name("agent_oracle.py")
REPLIES = ['{"summary": "s", "points": ["a"], "count": 2, "ok": true}', "no json here",
           'prose {"summary": 1} more', "[1, 2]", '{"a": {"b": 1}}', "{bad json}",
           '{"summary": "ü", "score": 1.5, "meta": {}}']
PARAMS: list[dict[str, Any]] = [{}, {"text": "hello", "max_points": 3, "n": 2.5, "flag": True},
                                {"text": "{{ text }}", "items": [1, "x"], "extra": None}]

FILES = {
    "every_type": """\
---
name: AllTypes
version: 3
description: Every parameter type.
vendor: anthropic
model: claude-haiku-4-5
temperature: 0
max_tokens: 500
enabled_by_default: true
allowed_skills: [files, git]
recursion_limit: 7
max_tool_repetitions: 1
---

## Input

### text
type: string
description: Some text
required: true

### n
type: number
description: A number

### count
type: integer
required: false

### flag
type: boolean
description: A flag
required: FALSE

### items
type: array
description: Items

### extra
type: object
description: Anything else
required: false

## Output

### summary
type: string
description: The summary

### score
type: number
required: false

### meta
type: object
required: false

## Prompt

Text: {{ text }} / {{n}} / {{  count  }} / {{ flag }} / {{ items }} / {{ extra }} / {{ missing }}
""",
    "no_inputs": "---\nname: NoInputs\ndescription: Takes nothing.\n---\n\n## Prompt\n\nSay hi.\n",
    "outputs_only": """\
---
name: OutputsOnly
description: Returns structure.
---
## Output
### summary
type: string
### points
type: array
description: The points
required: true
### ok
type: boolean
required: false
## Prompt
Go.
""",
    "odd_whitespace": "---\nname:    Spacey\ndescription:   Lots   of  space.  \nversion: 1.2.3\n"
                      "---\n\n\n## Input   \n\n### text\ntype:     string\ndescription:    "
                      "padded words   \nrequired:   true\n\n\n## Prompt    \n\n\n   Indented "
                      "{{text}}   \n\n\n",
    "extra_sections": """\
---
name: Sections
description: Has sections Birdie ignores.
---
# Title

Some intro.

## Notes

Ignored notes, with `type: integer` in them.

## Input

### topic
description: A topic that spans
  two lines
type: string

## Examples

An example.

## Prompt

Write about {{ topic }}.

## After

Not part of the prompt.
""",
    "crlf": "---\r\nname: Crlf\r\ndescription: Windows line ends.\r\n---\r\n\r\n## Prompt\r\n\r\n"
            "First line\r\nSecond {{ text }}\r\n",
    "multiline_desc": "---\nname: Multi\ndescription: >\n  A folded\n  description.\n"
                      "enabled_by_default: false\n---\n## Input\n### text\ndescription: first\n"
                      "   second\n## Prompt\n{{ text }}\n",
    # Triggers are keys 0.15.1 does not know: it reads the agent as if they were not there.
    "triggers": "---\nname: Digest\ndescription: d\nevery: 30m\ncron: \"0 9 * * 1-5\"\n"
                "tz: Europe/Paris\nwatch: [drafts/*.md, notes]\ndebounce: 2s\n"
                "input:\n  text: the inbox\napproval:\n  mode: ask\n  allow: [read_file]\n"
                "---\n## Input\n### text\ntype: string\n## Prompt\nDigest {{ text }}\n",
    "prompt_with_hashes": "---\nname: Hashes\ndescription: d\n---\n## Prompt\nUse ### and #### "
                          "headings, and {{ text }}.\n#### Not a section\nStill prompt.\n",
}


@pytest.fixture(scope="module")
def birdie_python() -> Path:
    try:
        return ensure_birdie_venv("0.15.1") / "bin" / "python"
    except InstallError as exc:
        pytest.skip(f"cannot install birdie-agent==0.15.1: {exc}")


def summarizer_text(python: Path) -> str:
    site = python.parent.parent / "lib" / "python3.11" / "site-packages"
    return (site / "birdie" / "agents" / "summarizer" / "AGENT.MD").read_text()


def birdie_view(python: Path, texts: list[str]) -> list[dict[str, Any]]:
    cases = [{"text": t, "params": PARAMS, "replies": REPLIES} for t in texts]
    proc = subprocess.run([str(python), str(ORACLE)], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=300, env=_venv_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: list[dict[str, Any]] = json.loads(proc.stdout)
    return result


def ours(agent: AgentDef) -> dict[str, Any]:
    def param(p: Any) -> dict[str, Any]:
        return {"name": p.name, "type": p.type, "description": p.description,
                "required": p.required}

    return {"name": agent.name, "version": agent.version, "description": agent.description,
            "vendor": agent.vendor, "model": agent.model, "temperature": agent.temperature,
            "max_tokens": agent.max_tokens, "enabled_by_default": agent.enabled_by_default,
            "allowed_skills": list(agent.allowed_skills),
            "recursion_limit": agent.recursion_limit,
            "max_tool_repetitions": agent.max_tool_repetitions,
            "input_params": [param(p) for p in agent.inputs],
            "output_params": [param(p) for p in agent.outputs], "prompt": agent.prompt}


def test_the_bundled_summarizer_is_birdies_verbatim(birdie_python):
    """The bundled Summarizer is 0.15.1's file, byte for byte."""
    mine = Path(__file__).parents[2] / "agents" / "summarizer" / "AGENT.MD"
    assert mine.read_text() == summarizer_text(birdie_python)


def test_files_birdie_reads_load_identically(birdie_python):
    """Field by field, then the tool schema, every rendered prompt and every output check."""
    texts = {"summarizer": summarizer_text(birdie_python), **FILES}
    views = birdie_view(birdie_python, list(texts.values()))
    for (label, text), view in zip(texts.items(), views):
        assert "error" not in view, (label, view)
        agent = parse_agent_md(text, Path(f"/{label}/AGENT.MD"))
        assert ours(agent) == view["agent"], label
        assert input_schema(agent) == view["schema"], label
        assert [render_prompt(agent, p) for p in PARAMS] == view["prompts"], label
        assert [list(parse_output(agent, r)) for r in REPLIES] == view["outputs"], label


REFUSED = {  # what 0.15.1 crashes on: here, a problem (its message, ours in the test above)
    "no_frontmatter": "## Prompt\nx\n",
    "list_frontmatter": "---\n- a\n---\n## Prompt\nx\n",
    "no_name": "---\ndescription: d\n---\n## Prompt\nx\n",
    "no_prompt": "---\nname: A\ndescription: d\n---\n## Input\n",
    "bad_limit": "---\nname: A\ndescription: d\nrecursion_limit: ten\n---\n## Prompt\nx\n",
    "string_skills": "---\nname: A\ndescription: d\nallowed_skills: git\n---\n## Prompt\nx\n",
}
MANGLED = {  # what 0.15.1 reads as something else: here, a problem too
    "spaces": ("---\nname: My Agent\ndescription: d\n---\n## Prompt\nx\n",
               lambda v: v["agent"]["name"] == "My Agent"),
    "string_false": ("---\nname: A\ndescription: d\nenabled_by_default: 'false'\n---\n"
                     "## Prompt\nx\n", lambda v: v["agent"]["enabled_by_default"] is True),
    "crlf_params": ("---\r\nname: A\r\ndescription: d\r\n---\r\n## Input\r\n### text\r\n"
                    "type: string\r\n## Prompt\r\n{{ text }}\r\n",
                    lambda v: v["agent"]["input_params"] == []),
    "dashed_param": ("---\nname: A\ndescription: d\n---\n## Input\n### my-text\ntype: string\n"
                     "## Prompt\nx\n", lambda v: v["agent"]["input_params"] == []),
    "dashes_in_value": ("---\nname: A\ndescription: a---b\n---\n## Prompt\nx\n",
                        lambda v: v["agent"]["description"] == "a"),
}


def test_what_birdie_refuses_or_mangles_is_a_problem_here(birdie_python):
    """0.15.1 fails on the first set and silently changes the second (a name no vendor takes as
    a tool's, "false" read as true, parameters dropped, a value cut at '---'); each is one
    problem with its line here."""
    views = birdie_view(birdie_python, [*REFUSED.values(), *(t for t, _ in MANGLED.values())])
    for label, view in zip(REFUSED, views):
        assert "error" in view, label
    for (label, (_, seen)), view in zip(MANGLED.items(), views[len(REFUSED):]):
        assert "error" not in view and seen(view), label
    for label, text in [*REFUSED.items(), *((k, t) for k, (t, _) in MANGLED.items())]:
        with pytest.raises(AgentFileError) as caught:
            parse_agent_md(text, Path(f"/{label}/AGENT.MD"))
        assert caught.value.problem.line is not None or label == "no_prompt", label
