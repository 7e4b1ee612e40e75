"""An agent's call: its tool schema, its rendered prompt, the check of its answer.

Byte for byte Birdie 0.15.1's `render_agent_prompt`, `_input_schema` and `parse_agent_output`
(birdie/core/agent_runner.py; tests/agent_files/test_agent_md_compat.py runs them side by
side). A Markdown agent's user message is its `task`, as given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from birdie_tui.agent_files.models import AgentDef

_TYPE_MAP = {"string": "string", "integer": "integer", "number": "number",
             "boolean": "boolean", "array": "array", "object": "object"}
_JSON_TYPE_CHECKS: dict[str, Any] = {"string": str, "integer": int, "number": (int, float),
                                     "boolean": bool, "array": list, "object": dict}
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def render_prompt(agent: AgentDef, params: Mapping[str, Any]) -> str:
    """The child's user message: `{{ param }}` placeholders filled (an unknown one left as
    written) and, when outputs are declared, the instructions for the JSON answer."""
    if agent.format == "markdown":
        return str(params.get("task", ""))

    def replace(m: re.Match[str]) -> str:
        key = m.group(1).strip()
        return str(params.get(key, m.group(0)))

    prompt = _PLACEHOLDER.sub(replace, agent.prompt)
    if agent.outputs:
        lines = ["", "Return your final answer as a single JSON object with exactly "
                 "these fields:"]
        for p in agent.outputs:
            desc = f": {p.description}" if p.description else ""
            lines.append(f'- "{p.name}" ({p.type}){desc}')
        lines.append("Output only the JSON object, no other text.")
        prompt += "\n".join(lines)
    return prompt


def input_schema(agent: AgentDef) -> dict[str, Any]:
    """The JSON Schema of the agent's tool: one property per input, the required ones listed."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in agent.inputs:
        properties[p.name] = {"type": _TYPE_MAP.get(p.type, "string"),
                              "description": p.description}
        if p.required:
            required.append(p.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def parse_output(agent: AgentDef, text: str) -> tuple[str | None, str | None]:
    """(the answer as canonical JSON, None), or (None, what is wrong, for the one retry)."""
    stripped = text.strip()
    data: Any = None
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        m = re.search(r"\{.*\}", stripped, re.DOTALL)
        if m is None:
            return None, "the reply contains no JSON object"
        try:
            data = json.loads(m.group())
        except json.JSONDecodeError:
            return None, "the reply is not valid JSON"
    if not isinstance(data, dict):
        return None, "the top-level JSON value must be an object"
    errors: list[str] = []
    for p in agent.outputs:
        if p.name not in data:
            if p.required:
                errors.append(f"missing required field '{p.name}'")
            continue
        expected = _JSON_TYPE_CHECKS.get(p.type)
        if expected is not None and not isinstance(data[p.name], expected):
            errors.append(f"field '{p.name}' must be of type {p.type}, "
                          f"got {type(data[p.name]).__name__}")
    if errors:
        return None, "; ".join(errors)
    return json.dumps(data, ensure_ascii=False), None
