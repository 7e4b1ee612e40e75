"""Prompt, schema and output checks of an agent (Birdie 0.15.1's; stand-in)."""

from __future__ import annotations

import json
import re
from typing import Any

from birdie_tui.agent_files.models import AgentDef

_TYPES = {"string", "integer", "number", "boolean", "array", "object"}
_CHECKS: dict[str, Any] = {"string": str, "integer": int, "number": (int, float),
                           "boolean": bool, "array": list, "object": dict}


def render_prompt(agent: AgentDef, params: dict[str, Any]) -> str:
    def replace(m: re.Match[str]) -> str:
        key = m.group(1).strip()
        return str(params.get(key, m.group(0)))

    prompt = re.sub(r"\{\{\s*(\w+)\s*\}\}", replace, agent.prompt)
    if agent.outputs:
        lines = ["", "Return your final answer as a single JSON object with exactly these fields:"]
        for p in agent.outputs:
            desc = f": {p.description}" if p.description else ""
            lines.append(f'- "{p.name}" ({p.type}){desc}')
        lines.append("Output only the JSON object, no other text.")
        prompt += "\n".join(lines)
    return prompt


def input_schema(agent: AgentDef) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in agent.inputs:
        properties[p.name] = {"type": p.type if p.type in _TYPES else "string",
                              "description": p.description}
        if p.required:
            required.append(p.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def parse_output(agent: AgentDef, text: str) -> tuple[str | None, str | None]:
    stripped = text.strip()
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
        expected = _CHECKS.get(p.type)
        if expected is not None and not isinstance(data[p.name], expected):
            errors.append(f"field '{p.name}' must be of type {p.type}, "
                          f"got {type(data[p.name]).__name__}")
    if errors:
        return None, "; ".join(errors)
    return json.dumps(data, ensure_ascii=False), None
