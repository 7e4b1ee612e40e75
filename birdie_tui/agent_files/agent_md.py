"""Birdie's AGENT.MD, read as Birdie 0.15.1's `birdie/core/agent_loader.py` reads it.

The same regular expressions, quirks included, so every file 0.15.1 reads well gives the same
agent here (tests/agent_files/test_agent_md_compat.py runs 0.15.1's own parser beside this
one): the frontmatter is the text between the file's first `---` and the next `---`; a
section is `## Input` / `## Output` / `## Prompt` up to the next `\\n## `; a parameter is a
`### word` line with `type:`, `description:` and `required:` lines (required unless
`required: false`; a description is one line: one that runs on to an indented line is read
as empty, as there); the prompt is its section stripped.

What 0.15.1 crashes on, skips with a printed line, or silently reads as something else is an
`AgentFileError` naming the file and line: no frontmatter, a YAML error, a frontmatter that is
not a mapping, a missing name or description, no `## Prompt`, a field of the wrong type
(`recursion_limit: ten`, `enabled_by_default: "false"`, which 0.15.1 reads as true), a name
that cannot be a tool name (0.15.1 takes `My Agent` and every model call of the session then
fails at the vendor), a `### heading` it would drop (`### my-param`, trailing spaces, CRLF
line ends), an unknown parameter type, a `required:` that is neither true nor false.
"""

from __future__ import annotations

import re
from pathlib import Path

from birdie_tui.agent_files.fields import Fields, load_frontmatter
from birdie_tui.agent_files.models import AgentDef, AgentFileError, AgentParam, AgentProblem
from birdie_tui.agent_files.triggers import TRIGGER_KEYS, agent_triggers

# 0.15.1's expressions, verbatim.
_FRONTMATTER = re.compile(r"^---(.*?)---", re.DOTALL)
_PROMPT = re.compile(r"## Prompt\s*\n(.*?)(?=\n## |\Z)", re.DOTALL)
_PARAM = re.compile(r"\n### (\w+)\n(.*?)(?=\n### |\Z)", re.DOTALL)
_TYPE = re.compile(r"type:\s*(\S+)")
_DESCRIPTION = re.compile(r"description:\s*(.*?)(?=\n\w|$)")  # no DOTALL: one line
_REQUIRED = re.compile(r"required:\s*(\S+)")

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object")
_KNOWN_KEYS = {"name", "version", "description", "vendor", "model", "temperature", "max_tokens",
               "enabled_by_default", "allowed_skills", "recursion_limit", "max_tool_repetitions"}


def _section(section: str) -> re.Pattern[str]:
    return re.compile(rf"## {section}\s*\n(.*?)(?=\n## |\Z)", re.DOTALL)


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def parse_agent_md(text: str, path: Path) -> AgentDef:
    """One AGENT.MD file's text as an `AgentDef`; `AgentFileError` when it cannot be one."""
    def problem(pos: int, message: str) -> AgentFileError:
        return AgentFileError(AgentProblem(path, _line_at(text, pos), message))

    if "\x00" in text:
        raise problem(text.index("\x00"), "the file contains a NUL byte (is it binary?)")
    front = _FRONTMATTER.search(text)
    if front is None:
        raise AgentFileError(AgentProblem(path, 1, "no YAML frontmatter: the file must start "
                                          "with a '---' line, and another '---' line end it"))
    closing = front.end() - 3
    if closing > 0 and text[closing - 1] != "\n":
        # 0.15.1 ends the frontmatter at the first '---' anywhere, even inside a value.
        raise problem(closing, "the frontmatter ends at the first '---', here inside a line: "
                               "Birdie reads only the text before it; put '---' alone on a line")
    meta = load_frontmatter(front.group(1), 1, path)
    fields = Fields(meta, front.group(1), 1, path)
    name = fields.tool_name(fields.required_text("name"))
    description = fields.required_text("description")
    prompt = _PROMPT.search(text)
    if prompt is None:
        raise AgentFileError(AgentProblem(path, None, "no '## Prompt' section: the prompt "
                                          "template goes under a '## Prompt' heading"))
    if prompt.start() > 0 and text[prompt.start() - 1] == "#":
        raise problem(prompt.start(), "Birdie reads this '### Prompt' heading as the prompt "
                                      "section: rename it, or put '## Prompt' before it")
    if not prompt.group(1).strip():
        raise problem(prompt.start(), "the '## Prompt' section is empty")
    inputs = _params(text, "Input", path)
    return AgentDef(
        name=name, description=description, prompt=prompt.group(1).strip(),
        version=str(meta.get("version", "1.0.0")),
        vendor=fields.text("vendor"), model=fields.text("model"),
        temperature=fields.number("temperature"),
        max_tokens=fields.integer("max_tokens", None),
        enabled_by_default=fields.flag("enabled_by_default", False),
        allowed_skills=fields.names("allowed_skills", comma_text=False),
        recursion_limit=fields.integer("recursion_limit", 25, minimum=1) or 25,
        max_tool_repetitions=fields.integer("max_tool_repetitions", 3, minimum=0) or 0,
        inputs=inputs, outputs=_params(text, "Output", path),
        format="AGENT.MD", path=path, triggers=agent_triggers(fields, name, inputs),
        extra={k: v for k, v in meta.items() if k not in _KNOWN_KEYS | TRIGGER_KEYS})


def _params(text: str, section: str, path: Path) -> tuple[AgentParam, ...]:
    """0.15.1's `_parse_params_section`, and a problem for each heading it would lose."""
    found = _section(section).search(text)
    if found is None:
        return ()
    body = "\n" + found.group(1)
    offset = found.start(1) - 1  # body[i] is text[offset + i] (but for the "\n" put in front)
    params: list[AgentParam] = []
    starts = set()
    for block in _PARAM.finditer(body):
        starts.add(block.start())
        line = _line_at(text, offset + block.start() + 1)
        param = _param(block.group(1).strip(), block.group(2), section, path, line)
        if any(p.name == param.name for p in params):
            raise AgentFileError(AgentProblem(path, line, f"{section.lower()} parameter "
                                              f"'{param.name}' is declared twice"))
        params.append(param)
    for heading in re.finditer(r"\n### ", body):
        if heading.start() not in starts:
            raise _dropped(text, offset + heading.start() + 1, body[heading.end():], section,
                           path)
    return tuple(params)


def _dropped(text: str, at: int, after: str, section: str, path: Path) -> AgentFileError:
    """The problem with the `### ` heading at `at`, which 0.15.1 reads no parameter from."""
    heading = text[at:].split("\n", 1)[0]
    before = text[:max(at - 1, 0)].rsplit("\n", 1)[-1]
    if heading.endswith("\r"):
        why = "it ends in a carriage return (CRLF line ends): save the file with LF ends"
    elif not after.partition("\n")[1]:
        why = "it is the section's last line: give it a 'type:' line"
    elif before.startswith("### "):
        why = "it follows another '###' heading directly: put a line between them"
    else:
        why = "a parameter's name is one word (letters, digits, '_') with nothing after it"
    return AgentFileError(AgentProblem(path, _line_at(text, at), f"Birdie drops the "
                                       f"{section.lower()} heading {heading.strip()!r}: {why}"))


def _param(name: str, body: str, section: str, path: Path, line: int) -> AgentParam:
    type_match = _TYPE.search(body)
    desc_match = _DESCRIPTION.search(body)
    req_match = _REQUIRED.search(body)
    kind = type_match.group(1) if type_match else "string"
    what = f"{section.lower()} parameter '{name}'"
    if kind not in JSON_TYPES:
        raise AgentFileError(AgentProblem(path, line, f"{what}: type {kind!r} is not one of "
                                          f"{', '.join(JSON_TYPES)}"))
    if req_match and req_match.group(1).lower() not in ("true", "false"):
        raise AgentFileError(AgentProblem(path, line, f"{what}: required must be true or false, "
                                          f"got {req_match.group(1)!r}"))
    return AgentParam(name=name, type=kind,
                      description=desc_match.group(1).strip() if desc_match else "",
                      required=(req_match.group(1).lower() == "true") if req_match else True)
