"""`agents run NAME --input k=v ...`: values typed as the agent declares its inputs.

`string` is taken as written; `integer`, `number` and `boolean` are parsed; `array` and
`object` are JSON. An unknown name, a required input left out, or a value that does not parse
is an `InputError` whose text is the one line to show.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from birdie_tui.agent_files.models import AgentDef, AgentParam

TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class InputError(ValueError):
    """A bad `--input`: the message names the input and what is wrong."""


def split_input(text: str) -> tuple[str, str]:
    """`name=value` (the value may hold `=`)."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InputError(f"--input {text!r}: expected NAME=VALUE")
    return name.strip(), value


def typed_inputs(agent: AgentDef, given: Sequence[str]) -> dict[str, Any]:
    """The `--input` values of `given` for `agent`, each of its declared type."""
    declared = {param.name: param for param in agent.inputs}
    values: dict[str, Any] = {}
    for text in given:
        name, value = split_input(text)
        param = declared.get(name)
        if param is None:
            names = ", ".join(declared) or "none"
            raise InputError(f"the agent {agent.name} has no input {name!r} (its inputs: {names})")
        values[name] = typed(param, value)
    missing = [p.name for p in agent.inputs if p.required and p.name not in values]
    if missing:
        raise InputError(f"the agent {agent.name} needs --input {missing[0]}=VALUE "
                         f"({missing[0]} is required)")
    return values


def typed(param: AgentParam, value: str) -> Any:
    """`value` as `param`'s type; raises InputError when it is not one."""
    kind = param.type
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
        if kind == "boolean":
            return _boolean(value)
        if kind in ("array", "object"):
            return _json(kind, value)
    except ValueError:
        raise InputError(f"--input {param.name}={value!r}: not {_article(kind)} {kind}") from None
    return value


def _boolean(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in TRUE or lowered in FALSE:
        return lowered in TRUE
    raise ValueError(value)


def _json(kind: str, value: str) -> Any:
    data = json.loads(value)  # json.JSONDecodeError is a ValueError
    if not isinstance(data, list if kind == "array" else dict):
        raise ValueError(value)
    return data


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


__all__ = ["InputError", "split_input", "typed", "typed_inputs"]
