"""How long one tool call may run and how often a failed one is tried again (Birdie 0.15's
per-call `timeout_s` and tool-block `retries:`).

`timeout_s`: every `bash:` and `http:` tool offers the model an optional `timeout_s` argument
(a number of seconds). It is clamped to [1, the tool's maximum], the maximum being the tool
block's `timeout:` if it has one, else the `max_timeout` setting (600 s by default); without it
the call gets the tool's `timeout:`, else the engine's tool timeout. It is taken out of the
arguments before anything runs, and it is not part of the declared schema (`skills check`). A
skill that declares its own `timeout_s` property keeps it as an ordinary argument.

`retries:` as upstream Birdie: that many re-attempts after a failed run, at once (no backoff);
unset means one for `http:get` (idempotent) and none otherwise. A timeout is not retried (it
would multiply the wait and tell nothing new), nor is a call that can never succeed (arguments
that fail the schema, a template or entrypoint that cannot run); a cancel never is.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from birdie_tui.skills.models import SkillTool

TIMEOUT_PARAM = "timeout_s"
MIN_CALL_TIMEOUT = 1.0
DEFAULT_MAX_CALL_TIMEOUT = 600.0


def _scheme(tool: SkillTool) -> tuple[str, str]:
    scheme, _, target = tool.entrypoint.partition(":")
    return scheme.strip().lower(), target.strip().split(" ", 1)[0].lower()


def takes_call_timeout(tool: SkillTool) -> bool:
    """`bash:`/`http:` tools whose schema does not already have a `timeout_s` of its own."""
    declared = (tool.schema or {}).get("properties") or {}
    return _scheme(tool)[0] in ("bash", "http") and TIMEOUT_PARAM not in declared


def max_timeout(tool: SkillTool, setting: float | None = None) -> float:
    if tool.timeout_s is not None:
        return float(tool.timeout_s)
    return float(setting if setting is not None else DEFAULT_MAX_CALL_TIMEOUT)


def model_schema(tool: SkillTool, default: float, maximum: float) -> dict[str, Any]:
    """The schema the model is given: the declared one, plus `timeout_s` where it applies."""
    schema = copy.deepcopy(tool.schema) if tool.schema else {}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    if takes_call_timeout(tool):  # short: it is sent with every model call
        schema["properties"][TIMEOUT_PARAM] = {
            "type": "number",
            "description": f"Max seconds to wait (default {default:g}, max {maximum:g})",
        }
    return schema


def split_call_timeout(tool: SkillTool, args: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(the model's `timeout_s` or None, the arguments without it)."""
    if not takes_call_timeout(tool) or TIMEOUT_PARAM not in args:
        return None, args
    rest = dict(args)
    return rest.pop(TIMEOUT_PARAM), rest


def call_timeout(value: Any, default: float, maximum: float) -> float:
    """The timeout of one call: `value` (the model's `timeout_s`) clamped to [1, maximum], or
    `default` when the model gave none. Raises ValueError for a value that is not a number."""
    if value is None:
        return default
    number: float | None = None
    if not isinstance(value, bool):
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            number = None
    if number is None or math.isnan(number):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
        raise ValueError(f"{TIMEOUT_PARAM} must be a number of seconds, got {shown}")
    return min(max(number, MIN_CALL_TIMEOUT), maximum)


def retries_of(tool: SkillTool) -> int:
    """Re-attempts after a failure: the tool's `retries:`, else 1 for `http:get`, else 0."""
    if tool.retries is not None:
        return tool.retries
    return 1 if _scheme(tool) == ("http", "get") else 0
