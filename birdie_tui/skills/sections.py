"""The body sections of a Birdie `SKILL.MD`: `## Tools` blocks and `## Permissions`.

Each problem is recorded in an `Errors` with its line in the original file (1-based);
`lines` are the file's lines and every index taken or returned here is 0-based.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from .arguments import schema_problem
from .models import (HTTP_METHODS, PERMISSION_RULE_KEYS, RUNNABLE_SCHEMES, UNSUPPORTED_SCHEMES,
                     SkillError, SkillTool)
from .parse_util import FAIL, FENCE, H2, H3, KEY, Errors, load_yaml, scalar_str, typename

_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*$")
# Keys of a tool block that are read; `timeout`/`retries` are newer Birdie's (0.15).
_TOOL_KEYS = ("description", "entrypoint", "schema", "timeout", "retries", "approval")
APPROVAL_VALUES = ("ask", "never", "outside_workdir")
_EXPECTED_SCHEMES = "bash:, http:get URL, http:post URL, python:, grpc: or container:"
_PLAIN = re.compile(r"[A-Za-z][\w ,.;()'/-]*")
_YAML_WORDS = frozenset(("yes", "no", "true", "false", "on", "off", "null"))
_CHECKED: dict[bytes, str | None] = {}  # schema digest -> its problem (None: valid)
_CHECKED_MAX = 4096


def sections(lines: list[str], body_start: int) -> list[tuple[str, int, int, int]]:
    """`## ` sections as (title, heading index, first content index, end index), 0-based."""
    heads: list[tuple[str, int]] = []
    fenced = False
    for i in range(body_start, len(lines)):
        if FENCE.match(lines[i]):
            fenced = not fenced
            continue
        m = None if fenced else H2.match(lines[i])
        if m:
            heads.append((m.group(1).strip(), i))
    out = []
    for n, (title, i) in enumerate(heads):
        end = heads[n + 1][1] if n + 1 < len(heads) else len(lines)
        out.append((title, i, i + 1, end))
    return out


# --------------------------------------------------------------------------- ## Tools


def tools(lines: list[str], start: int, end: int, skill_name: str, tags: list[str], errs: Errors,
          seen: dict[str, int]) -> list[SkillTool]:
    """The tool blocks of one `## Tools` section; `seen` (tool name -> line, across sections) grows."""
    blocks: list[tuple[str, int, int]] = []  # (name, heading index, end index)
    for i in range(start, end):
        m = H3.match(lines[i])
        if m:
            if blocks:
                blocks[-1] = (blocks[-1][0], blocks[-1][1], i)
            blocks.append((m.group(1).strip().strip("`").strip(), i, end))
    out: list[SkillTool] = []
    for name, head, stop in blocks:
        line = head + 1
        if not _TOOL_NAME.match(name):
            errs.add(line, f"tool name '{name}' is invalid (use letters, digits, '_' or '-', max 64)")
            continue
        if name in seen:
            errs.add(line, f"duplicate tool name '{name}' (first defined at line {seen[name]})")
            continue
        seen[name] = line
        tool = _tool_block(name, lines, head + 1, stop, skill_name, tags, errs)
        if tool is not None:
            out.append(tool)
    return out


def entrypoint_problem(entrypoint: str) -> str | None:
    """Why `entrypoint` can never run (None if it can, or is a known-but-unsupported scheme).

    Checked at load time so `skills check` reports a typo'd scheme instead of the model
    discovering it on the first call.
    """
    scheme, sep, target = entrypoint.partition(":")
    scheme = scheme.strip().lower()
    if not sep or not _SCHEME.match(scheme):
        return f"entrypoint {entrypoint!r} has no scheme (expected {_EXPECTED_SCHEMES})"
    if scheme not in RUNNABLE_SCHEMES + UNSUPPORTED_SCHEMES:
        return f"unknown entrypoint scheme '{scheme}:' (expected {_EXPECTED_SCHEMES})"
    target = target.strip()
    if not target:
        return f"entrypoint '{scheme}:' has no target"
    if scheme == "http":
        method, _, url = target.partition(" ")
        if method.lower() not in HTTP_METHODS:
            return f"unknown HTTP method in entrypoint 'http:{method}' (expected one of {', '.join(HTTP_METHODS)})"
        if not url.strip():
            return f"entrypoint 'http:{method}' needs a URL (e.g. 'http:{method} https://example.com/api')"
    return None


def _tool_segments(name: str, lines: list[str], start: int, stop: int, errs: Errors
                   ) -> tuple[dict[str, tuple[int, list[str]]], bool]:
    """A tool block's `key: value` segments (continuation lines included) by key."""
    segments: dict[str, tuple[int, list[str]]] = {}
    current: str | None = None
    ok = True
    for i in range(start, stop):
        ln = lines[i]
        if not ln.strip() or ln[0] in " \t":
            if current is not None:
                segments[current][1].append(ln)
            elif ln.strip():
                errs.add(i + 1, f"tool '{name}': unexpected indented line")
                ok = False
            continue
        if ln.startswith("#") or FENCE.match(ln):  # comment or ``` fence around the block
            if current is not None:
                segments[current][1].append("")
            continue
        m = KEY.match(ln)
        if not m:
            errs.add(i + 1, f"tool '{name}': expected 'key: value', got {ln.strip()[:60]!r}")
            ok = False
            current = None
            continue
        current = m.group(1).lower()
        if current in segments:
            errs.add(i + 1, f"tool '{name}': '{current}' given twice")
            ok = False
        segments[current] = (i, [ln])
    return segments, ok


def _tool_block(name: str, lines: list[str], start: int, stop: int, skill_name: str, tags: list[str],
                errs: Errors) -> SkillTool | None:
    head_line = start  # 1-based line of the ### heading == 0-based index of first content line
    segments, ok = _tool_segments(name, lines, start, stop, errs)
    values: dict[str, Any] = {}
    for key, (idx, seg) in segments.items():
        if key not in _TOOL_KEYS:
            continue  # unknown keys are ignored
        value = _segment_value(key, idx, seg, name, errs)
        if value is FAIL:
            ok = False
        else:
            values[key] = value

    description = values.get("description")
    entrypoint = values.get("entrypoint")
    # (a description refused by a YAML limit was reported already: not "missing" too)
    if "description" not in segments or ("description" in values and description in (None, "")):
        errs.add(head_line, f"tool '{name}': missing 'description'")
        ok = False
    elif isinstance(description, (dict, list)):
        errs.add(segments["description"][0] + 1, f"tool '{name}': description must be text")
        ok = False
    if "entrypoint" not in segments or entrypoint in (None, ""):
        errs.add(head_line, f"tool '{name}': missing 'entrypoint'")
        ok = False
    elif not isinstance(entrypoint, str):
        errs.add(segments["entrypoint"][0] + 1, f"tool '{name}': entrypoint must look like 'scheme:target'")
        ok = False
    elif (problem := entrypoint_problem(entrypoint)) is not None:
        errs.add(segments["entrypoint"][0] + 1, f"tool '{name}': {problem}")
        ok = False
    schema = _schema(values.get("schema"), name, segments.get("schema", (head_line - 1, []))[0] + 1, errs)
    timeout_s, retries, limits_ok = _limits(values, segments, name, errs)
    approval = values.get("approval")
    if "approval" in values and approval not in APPROVAL_VALUES:
        errs.add(segments["approval"][0] + 1, f"tool '{name}': approval must be one of "
                 f"{', '.join(APPROVAL_VALUES)}, got {approval!r}")
        ok = False
    if schema is None or not ok or not limits_ok or not isinstance(entrypoint, str):  # (ok: it is text)
        return None
    return SkillTool(name=name, description=scalar_str(description).strip(), entrypoint=entrypoint.strip(),
                     schema=schema, skill=skill_name, tags=list(tags), line=head_line,
                     timeout_s=timeout_s, retries=retries, approval=approval)


def _limits(values: dict[str, Any], segments: dict[str, tuple[int, list[str]]], tool: str,
            errs: Errors) -> tuple[float | None, int | None, bool]:
    """Newer Birdie's `timeout:` (seconds, a number > 0) and `retries:` (an integer >= 0)."""
    timeout = values.get("timeout")
    retries = values.get("retries")
    ok = True
    if "timeout" in values and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not 0 < timeout < float("inf")):
        errs.add(segments["timeout"][0] + 1,
                 f"tool '{tool}': timeout must be a number of seconds > 0, got {timeout!r}")
        timeout, ok = None, False
    if "retries" in values and (isinstance(retries, bool) or not isinstance(retries, int) or retries < 0):
        errs.add(segments["retries"][0] + 1,
                 f"tool '{tool}': retries must be a whole number >= 0, got {retries!r}")
        retries, ok = None, False
    return (None if timeout is None else float(timeout)), retries, ok


def _segment_value(key: str, idx: int, seg: list[str], tool: str, errs: Errors) -> Any:
    first = KEY.match(seg[0])
    raw = (first.group(2) if first else "").strip()
    if key == "entrypoint" and raw and raw[0] not in "|>":
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            raw = raw[1:-1]
        extra = " ".join(s.strip() for s in seg[1:] if s.strip())
        return f"{raw} {extra}".strip()
    if key == "description" and _plain_line(raw, seg):
        return raw  # what YAML would read, without a YAML parse per tool (a big file has 1,000s)
    holder = Errors(Path(errs.path))
    value = load_yaml(seg, idx + 1, holder, f"tool '{tool}'")
    if value is not FAIL and isinstance(value, dict) and key in value:
        return value[key]
    if key == "description" and not holder.refused:  # lenient: plain text, e.g. "Note: a colon"
        if raw in ("|", ">", "|-", ">-", "|+", ">+"):
            return "\n".join(s.strip() for s in seg[1:]).strip()
        return " ".join([raw] + [s.strip() for s in seg[1:] if s.strip()]).strip()
    errs.items.extend(holder.items or [SkillError(errs.path, idx + 1, f"tool '{tool}': cannot read '{key}'")])
    return FAIL


def _plain_line(raw: str, seg: list[str]) -> bool:
    """`raw` is a one-line YAML plain scalar that YAML reads as this very string: it starts
    with a letter, holds no YAML indicator, and is not a word YAML turns into a bool or null."""
    return (_PLAIN.fullmatch(raw) is not None and raw.lower() not in _YAML_WORDS
            and not any(s.strip() for s in seg[1:]))


def _schema_problem(schema: dict[str, Any]) -> str | None:
    """`schema_problem`, remembered by content: checking a schema against the metaschema is
    most of a tool block's parse, and a reload parses every unchanged file again."""
    try:
        key = hashlib.sha256(json.dumps(schema, sort_keys=True).encode("utf-8", "surrogatepass")
                             ).digest()
    except (TypeError, ValueError):
        return schema_problem(schema)
    if key not in _CHECKED:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.pop(next(iter(_CHECKED)))
        _CHECKED[key] = schema_problem(schema)
    return _CHECKED[key]


def _schema(value: Any, tool: str, line: int, errs: Errors) -> dict[str, Any] | None:
    if value is None:
        return {"type": "object", "properties": {}}
    if not isinstance(value, dict):
        errs.add(line, f"tool '{tool}': schema must be a mapping, got {typename(value)}")
        return None
    schema = dict(value)
    if schema.setdefault("type", "object") != "object":
        errs.add(line, f"tool '{tool}': schema type must be 'object', got {schema['type']!r}")
        return None
    props = schema.setdefault("properties", {})
    if props is None:
        props = schema["properties"] = {}
    if not isinstance(props, dict) or not all(isinstance(p, dict) for p in props.values()):
        errs.add(line, f"tool '{tool}': schema 'properties' must map names to mappings")
        return None
    req = schema.get("required")
    if req is not None and (not isinstance(req, list) or not all(isinstance(r, str) for r in req)):
        errs.add(line, f"tool '{tool}': schema 'required' must be a list of names")
        return None
    problem = _schema_problem(schema)  # e.g. `type: integr`: caught now, not on the first call
    if problem is not None:
        errs.add(line, f"tool '{tool}': invalid JSON schema: {problem}")
        return None
    return schema


# --------------------------------------------------------------------------- ## Permissions


def permissions(lines: list[str], start: int, end: int, head: int, errs: Errors
                ) -> tuple[list[str], dict[str, Any]]:
    """`## Permissions` as (capability names, `key: value` rules).

    Birdie writes a YAML list of capabilities (`- local_shell`); birdie-tui also accepts a
    mapping (`require_approval: [run_bash]`) and `- key: value` items, which become rules.
    """
    body = ["" if FENCE.match(ln) else ln for ln in lines[start:end]]
    value = load_yaml(body, start + 1, errs, "'## Permissions'")
    if value is FAIL or value is None:
        return [], {}
    names: list[str] = []
    rules: dict[str, Any] = {}
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                rules.update(item)
            elif isinstance(item, (str, int, float)) and not isinstance(item, bool) and str(item).strip():
                names.append(str(item).strip())
            else:
                errs.add(head + 1, "'## Permissions' items must be capability names or 'key: value' "
                                   f"pairs, got {typename(item)}")
    elif isinstance(value, dict):
        rules = value
    else:
        errs.add(head + 1, "'## Permissions' must be a YAML list of capabilities (e.g. '- local_shell') "
                           f"or a mapping, got {typename(value)}")
        return [], {}
    # A mapping names capabilities by its keys (`network: true`); rule keys and `false` don't count.
    names += [k for k, v in rules.items() if k not in PERMISSION_RULE_KEYS and v not in (False, None)]
    rule = rules.get("require_approval")
    if rule is not None and not isinstance(rule, (bool, str, list)):
        errs.add(head + 1, "'require_approval' must be true/false, a tool name or a list of tool names")
    return list(dict.fromkeys(names)), rules
