"""Helpers shared by the skill parser modules: error collection and line-aware YAML loading."""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any

import yaml

from . import safe_yaml
from .models import SkillError

H2 = re.compile(r"^##\s+(?!#)(.*?)\s*#*\s*$")
H3 = re.compile(r"^###\s+(?!#)(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")

FAIL = object()  # "this value could not be read" (an error was already recorded)


class Errors:
    """Collects `SkillError`s for one file."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        self.items: list[SkillError] = []
        self.refused = False  # a YAML block broke a `safe_yaml` limit (never read leniently)

    def add(self, line: int | None, message: str) -> None:
        self.items.append(SkillError(self.path, line, message))


def load_yaml(lines: list[str], first_line: int, errs: Errors, what: str) -> Any:
    """YAML-load `lines` (which start at 1-based `first_line`) within the `safe_yaml` limits;
    errors mapped to file lines."""
    try:
        return jsonable(safe_yaml.load("\n".join(lines)))
    except yaml.YAMLError as exc:
        errs.refused = errs.refused or isinstance(exc, safe_yaml.YAMLLimitError)
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        ctx = getattr(exc, "context", None)
        msg = f"{problem} ({ctx})" if ctx else problem
        errs.add(line, f"YAML error in {what}: {msg}")
        return FAIL
    except (ValueError, RecursionError) as exc:
        errs.add(first_line, f"YAML error in {what}: {exc}")
        return FAIL


def jsonable(value: Any, _memo: dict[int, Any] | None = None, _busy: set[int] | None = None) -> Any:
    """Turn YAML extras (dates, sets, bytes, non-string keys) into JSON-friendly values.

    Shared aliases are converted once (no "billion laughs" blow-up); recursive ones are refused.
    """
    memo = {} if _memo is None else _memo
    busy = set() if _busy is None else _busy
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        key = id(value)
        if key in memo:
            return memo[key]
        if key in busy:
            raise ValueError("recursive YAML alias")
        busy.add(key)
        if isinstance(value, dict):
            out: Any = {(k if isinstance(k, str) else scalar_str(k)): jsonable(v, memo, busy) for k, v in value.items()}
        else:
            out = [jsonable(v, memo, busy) for v in value]
        busy.discard(key)
        memo[key] = out
        return out
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


def scalar_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def typename(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            type(None): "nothing"}.get(type(value), f"a {type(value).__name__}")
