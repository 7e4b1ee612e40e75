"""A skill tool's arguments checked against its JSON schema, with the schema's defaults filled in.

`jsonschema` does the work (the draft the schema declares in `$schema`, else 2020-12), imported
on first use: loading skills for the TUI's first paint or `--help` never pays for it, and a
schema valid by its shape alone (`plain_schema`) is not sent to it at load time.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from functools import cache
from typing import Any

from birdie_tui.skills.plain_schema import plainly_valid
from birdie_tui.text import one_line

_MESSAGE_LIMIT = 300  # one line in the chat, even when the bad value is a long string


class ArgumentError(ValueError):
    """The model's arguments do not match the tool's schema; the text is shown to the model."""


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON schema (None if it is); for load-time reports."""
    if plainly_valid(schema):
        return None
    from jsonschema import SchemaError

    try:
        _validator_class(schema).check_schema(schema)
    except SchemaError as error:  # already the best match among the schema's problems
        return _describe(error)
    return None


def prepare_arguments(tool_name: str, schema: dict[str, Any], args: dict[str, Any] | None
                      ) -> dict[str, Any]:
    """The arguments a tool runs with: nulls dropped, schema defaults filled, then validated.

    A null counts as "not given" (models send `null` for optional arguments), so an optional
    argument with a default gets the default and a required one is reported missing.
    Raises `ArgumentError` naming the tool, the argument and what is wrong.
    """
    from jsonschema.exceptions import best_match

    out = {k: v for k, v in (args or {}).items() if v is not None}
    try:
        validator = _filling_validator(_validator_class(schema))(schema)
        error = best_match(validator.iter_errors(out))  # fills defaults while it walks
        if error is not None:  # `required` may have been checked before a default was set
            error = best_match(_validator_class(schema)(schema).iter_errors(out))
    except Exception as exc:  # noqa: BLE001 - a broken schema (unknown type, bad $ref)
        raise ArgumentError(f"cannot check arguments for {tool_name}: its schema is invalid "
                            f"({one_line(exc, _MESSAGE_LIMIT)})") from exc
    if error is not None:
        raise ArgumentError(f"invalid arguments for {tool_name}: {_describe(error)}")
    return out


def _validator_class(schema: dict[str, Any]) -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.validator_for(schema, default=Draft202012Validator)


@cache
def _filling_validator(cls: Any) -> Any:
    """`cls` extended so that `properties` first sets each missing property's `default`
    (the recipe from the jsonschema FAQ); nested objects get their defaults too."""
    from jsonschema import validators

    check_properties = cls.VALIDATORS["properties"]

    def fill_then_check(validator: Any, properties: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object") and isinstance(properties, dict):
            for name, sub in properties.items():
                if isinstance(sub, dict) and "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from check_properties(validator, properties, instance, schema)

    return validators.extend(cls, {"properties": fill_then_check})


def _describe(error: Any) -> str:
    """`argument: message` (no path for a top-level problem such as a missing property)."""
    path = ".".join(str(part) for part in error.absolute_path)
    message = " ".join(str(error.message).split())
    text = f"{path}: {message}" if path else message
    return text if len(text) <= _MESSAGE_LIMIT else text[:_MESSAGE_LIMIT - 1] + "…"
