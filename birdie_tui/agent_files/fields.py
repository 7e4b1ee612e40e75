"""Reading an agent file's frontmatter: the YAML (within the skills' limits), and typed fields
whose every refusal names the key's line.

Both formats share it. Values are converted as Birdie 0.15.1's pydantic `AgentDef` converts
them (an int for a float, "0.5" for 0.5, "100" for 100); what it refuses, and what it would
silently turn into something else (`enabled_by_default: "false"` is true there), is an
`AgentFileError` here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from birdie_tui.agent_files.models import AgentFileError, AgentProblem
from birdie_tui.skills import safe_yaml

# What OpenAI, Anthropic and Gemini accept as a tool's name: an agent is a tool.
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INT_TEXT = re.compile(r"^\s*[+-]?\d+\s*$")


def typename(value: Any) -> str:
    if value is None:
        return "nothing"
    return {bool: "true/false", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "a mapping"}.get(type(value), type(value).__name__)


def load_frontmatter(text: str, first_line: int, path: Path) -> dict[str, Any]:
    """The YAML mapping in `text`, whose first line is line `first_line` of the file."""
    try:
        data = safe_yaml.load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        raise AgentFileError(AgentProblem(
            path, line, f"YAML error in the frontmatter: {problem}"
                        + (f" ({context})" if context else ""))) from None
    except (ValueError, RecursionError) as exc:
        raise AgentFileError(AgentProblem(path, first_line,
                                          f"YAML error in the frontmatter: {exc}")) from None
    if data is None:
        raise AgentFileError(AgentProblem(path, first_line, "the frontmatter is empty: it "
                                          "needs at least 'name' and 'description'"))
    if not isinstance(data, dict):
        raise AgentFileError(AgentProblem(path, first_line, f"the frontmatter must be a YAML "
                                          f"mapping (key: value lines), got {typename(data)}"))
    return {str(k): v for k, v in data.items()}


class Fields:
    """Typed access to a frontmatter's keys; each refusal is an `AgentFileError` at its line."""

    def __init__(self, meta: Mapping[str, Any], text: str, first_line: int, path: Path):
        self.meta, self.path = meta, path
        self._lines, self._first = text.split("\n"), first_line

    def line(self, key: str) -> int:
        pattern = re.compile(rf"^\s*['\"]?{re.escape(key)}['\"]?\s*:")
        for i, text in enumerate(self._lines):
            if pattern.match(text):
                return self._first + i
        return self._first

    def fail(self, key: str, message: str) -> AgentFileError:
        return AgentFileError(AgentProblem(self.path, self.line(key), message))

    def required_text(self, key: str) -> str:
        if key not in self.meta:
            raise AgentFileError(AgentProblem(self.path, max(self._first - 1, 1),
                                              f"missing required field '{key}'"))
        value = self.meta[key]
        if not isinstance(value, str):
            raise self.fail(key, f"field '{key}' must be text, got {typename(value)}")
        return value

    def text(self, key: str) -> str | None:
        value = self.meta.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(key, f"field '{key}' must be text, got {typename(value)}")
        return value

    def number(self, key: str) -> float | None:
        value = self.meta.get(key)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise self.fail(key, f"field '{key}' must be a number, got {value!r}")

    def integer(self, key: str, default: int | None, *, minimum: int | None = None) -> int | None:
        value = self.meta.get(key, default)
        if value is None and default is None:
            return None
        if isinstance(value, str) and _INT_TEXT.match(value):
            value = int(value)
        if isinstance(value, float) and not isinstance(value, bool) and math.isfinite(value) \
                and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, f"field '{key}' must be a whole number, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"field '{key}' must be at least {minimum}, got {value}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.meta.get(key, default)
        if value is None:
            return False  # `key:` with no value: Birdie reads bool(None)
        if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
            return bool(value)
        # Birdie would take bool("false"), which is true: refused rather than turned round.
        raise self.fail(key, f"field '{key}' must be true or false (unquoted), got {value!r}")

    def names(self, key: str, *, comma_text: bool) -> tuple[str, ...]:
        """A list of names; with `comma_text`, "a, b" too (the Markdown agents' habit)."""
        value = self.meta.get(key, [])
        if isinstance(value, str) and comma_text:
            return tuple(p.strip() for p in value.split(",") if p.strip())
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        shape = "a YAML list of names ([a, b])" + (" or a comma-separated text" if comma_text
                                                  else "")
        raise self.fail(key, f"field '{key}' must be {shape}, got {typename(value)}")

    def tool_name(self, name: str, key: str = "name") -> str:
        if not TOOL_NAME.match(name):
            raise self.fail(key, f"name {name!r} cannot be a tool name: use 1 to 64 letters, "
                                 "digits, '_' or '-' (no spaces); the model's vendor refuses "
                                 "any other")
        return name
