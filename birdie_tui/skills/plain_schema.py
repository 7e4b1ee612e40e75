"""Tool schemas that are valid JSON schemas by their shape alone, told without `jsonschema`.

Checking a skill's schema against the 2020-12 metaschema is `jsonschema`'s work, but importing
it costs ~40 ms at start and ~2.4 MiB for as long as the app runs (bench/RESULTS.md §34), for
schemas that are nearly always a handful of typed properties. `plainly_valid` accepts only a
small set of keywords with values the metaschema certainly allows; anything else (`$schema`,
`$ref`, `pattern`, an unknown keyword, a float where an integer goes) is left to `jsonschema`,
so it can only say "valid" where `jsonschema` would. tests/skills/test_plain_schema.py checks
that against `jsonschema` on generated schemas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_DEPTH = 32  # deeper schemas go to jsonschema (a hostile file must not recurse far here)


def _text(value: Any, depth: int) -> bool:
    return isinstance(value, str)


def _anything(value: Any, depth: int) -> bool:
    return True


def _flag(value: Any, depth: int) -> bool:
    return isinstance(value, bool)


def _number(value: Any, depth: int) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any, depth: int) -> bool:  # the metaschema's nonNegativeInteger
    return type(value) is int and value >= 0


def _positive(value: Any, depth: int) -> bool:
    return _number(value, depth) and value > 0


def _array(value: Any, depth: int) -> bool:
    return isinstance(value, list)


def _type(value: Any, depth: int) -> bool:
    if isinstance(value, str):
        return value in _TYPES
    return (isinstance(value, list) and bool(value)
            and all(isinstance(name, str) and name in _TYPES for name in value)
            and len(set(value)) == len(value))


def _names(value: Any, depth: int) -> bool:  # `required`: unique strings
    return (isinstance(value, list) and all(isinstance(name, str) for name in value)
            and len(set(value)) == len(value))


def _properties(value: Any, depth: int) -> bool:
    return isinstance(value, dict) and all(
        isinstance(name, str) and _node(sub, depth + 1) for name, sub in value.items())


def _subschema(value: Any, depth: int) -> bool:
    return _node(value, depth + 1)


def _subschema_or_flag(value: Any, depth: int) -> bool:
    return isinstance(value, bool) or _node(value, depth + 1)


_KEYWORDS: dict[str, Callable[[Any, int], bool]] = {
    "type": _type, "description": _text, "title": _text, "format": _text,
    "default": _anything, "const": _anything, "enum": _array, "examples": _array,
    "properties": _properties, "required": _names, "items": _subschema,
    "additionalProperties": _subschema_or_flag, "uniqueItems": _flag,
    "minimum": _number, "maximum": _number, "exclusiveMinimum": _number,
    "exclusiveMaximum": _number, "multipleOf": _positive,
    "minLength": _count, "maxLength": _count, "minItems": _count, "maxItems": _count,
    "minProperties": _count, "maxProperties": _count,
}


def _node(schema: Any, depth: int) -> bool:
    if not isinstance(schema, dict) or depth > _DEPTH:
        return False
    for key, value in schema.items():
        check = _KEYWORDS.get(key) if isinstance(key, str) else None
        if check is None or not check(value, depth):
            return False
    return True


def plainly_valid(schema: dict[str, Any]) -> bool:
    """True only if `schema` is a valid 2020-12 JSON schema by its keywords' shapes alone;
    False means "ask jsonschema", not "invalid"."""
    return _node(schema, 0)
