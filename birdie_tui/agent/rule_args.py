"""A permission rule read against a call's arguments as data, never as shell syntax.

`key=glob` reads one argument (the others may be anything). `key="glob", other=3` (every value
JSON: a string is a glob over the argument's text, anything else must be equal) names the
call's arguments, all of them: a call with an argument more or less does not match. That is
the form "always allow this exact call" saves, its values with `*`, `?`, `[` escaped. For a
tool that is not `bash:` the pattern may also be a glob over the arguments' compact JSON.
docs/skills.md § Rule patterns.
"""

from __future__ import annotations

import fnmatch
import json
import re
import unicodedata
from typing import Any

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ESCAPED = re.compile(r"\[\*\]|\[\?\]|\[\[\]")  # the only glob characters of an exact pattern
KEY_GLOB = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*")
SPACE, EQUALS, NEXT = re.compile(r"\s*"), re.compile(r"\s*=\s*"), re.compile(r"\s*(?:,\s*|$)")
PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
UP = re.compile(r"(^|[/\\])\.\.([/\\]|$)")
UNSEEN = ("Cc", "Cf", "Zl", "Zp")  # characters a rule spells as \uXXXX, so none hides in it
_DECODER = json.JSONDecoder()


def escape_glob(text: str) -> str:
    """`text` as a glob that matches only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def exact_text(pattern: str) -> str | None:
    """The one text a pattern with no glob but escaped ones stands for, else None."""
    if re.search(r"[*?\[]", ESCAPED.sub("", pattern)):
        return None
    return ESCAPED.sub(lambda m: m.group()[1], pattern)


def json_args(command: str) -> dict[str, Any] | None:
    """The call's arguments when `command` is the compact JSON of a non-shell tool's call."""
    if not command.startswith("{"):
        return None
    try:
        value = json.loads(command)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def skip(rx: re.Pattern[str], text: str, at: int = 0) -> int:
    """Where `rx`, a pattern that may match nothing (so it always matches), ends from `at`."""
    m = rx.match(text, at)
    assert m is not None, f"{rx.pattern!r} matches the empty string"
    return m.end()


def _json(value: Any) -> str:
    """Compact-ish JSON with every control or invisible character escaped."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return "".join(json.dumps(c)[1:-1] if unicodedata.category(c) in UNSEEN else c for c in text)


def exact_args(args: dict[str, Any]) -> str:
    """The pattern naming exactly these arguments: `path="a.md", content="hi [*]"`."""
    if len(args) == 1 and not isinstance(next(iter(args.values())), (str, list, dict)):
        # a lone number or true would read as `key=glob`: name it by its text instead
        args = {k: json.dumps(v, default=str) for k, v in args.items()}
    return ", ".join(f"{k if PLAIN_KEY.fullmatch(k) else _json(k)}="
                     f"{_json(escape_glob(v)) if isinstance(v, str) else _json(v)}"
                     for k, v in args.items())


def named_args(pattern: str) -> dict[str, Any] | None:
    """The arguments a `key=JSON, …` pattern names; None when it is not one (a lone scalar,
    `count=5`, stays the `key=glob` form it always was)."""
    found: dict[str, Any] = {}
    opened = ""  # how the values begin: a lone value must be a string, a list or an object
    i = skip(SPACE, pattern)
    while i < len(pattern):
        try:
            if m := KEY.match(pattern, i):
                key, i = m.group(1), m.end()
            else:
                key, i = _DECODER.raw_decode(pattern, i)
                if (eq := EQUALS.match(pattern, i)) is None:
                    return None  # a JSON key with no `=` after it: not this form
                i = eq.end()
            opened += pattern[i:i + 1]
            value, i = _DECODER.raw_decode(pattern, i)
        except (ValueError, AttributeError):
            return None
        if not isinstance(key, str) or key in found or not (m := NEXT.match(pattern, i)):
            return None
        found[key], i = value, m.end()
    return None if len(found) == 1 and opened not in ('"', "[", "{") else found


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _value_matches(want: Any, got: Any, allow: bool) -> bool:
    if not isinstance(want, str):
        return json.dumps(want, sort_keys=True) == json.dumps(got, sort_keys=True, default=str)
    text = _text(got)
    if allow and exact_text(want) is None and (UP.search(text) or CONTROL.search(text)):
        return False  # a glob is never stretched over `..` or a control character
    return fnmatch.fnmatchcase(text, want)


def data_match(pattern: str, command: str, data: dict[str, Any] | None, args: dict[str, Any] | None,
               allow: bool) -> bool | None:
    """A pattern read against the arguments; None when it is not an argument pattern."""
    target = data if data is not None else args
    if isinstance(target, dict) and (named := named_args(pattern)) is not None:
        return set(named) == set(target) and all(
            _value_matches(want, target[key], allow) for key, want in named.items())
    m = KEY_GLOB.fullmatch(pattern)
    if m and isinstance(target, dict) and m.group(1) in target:
        text = _text(target[m.group(1)])
        return not (allow and (UP.search(text) or CONTROL.search(text))) \
            and fnmatch.fnmatchcase(text, m.group(2))
    return fnmatch.fnmatchcase(command, pattern) if data is not None else None


__all__ = ["CONTROL", "data_match", "escape_glob", "exact_args", "exact_text", "json_args",
           "named_args"]
