"""Parsing one skill file (Birdie `SKILL.MD` or Agent Skills `SKILL.md`) into a `Skill`.

Owns the file format: frontmatter splitting, field validation, `## Tools` / `## Permissions`
sections, body extraction. Every problem becomes a `SkillError` with a line in the original
file; all of them are raised together as one `SkillParseError` (and nothing else, ever).
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any

import yaml

from .models import MCPServerConfig, Skill, SkillError, SkillParseError, SkillTool

BIRDIE_FILE = "SKILL.MD"
AGENT_SKILLS_FILE = "SKILL.md"
RESOURCE_DIRS = ("scripts", "references", "assets")

_H2 = re.compile(r"^##\s+(?!#)(.*?)\s*#*\s*$")
_H3 = re.compile(r"^###\s+(?!#)(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")
_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_TRANSPORTS = {"stdio": "stdio", "sse": "sse", "http": "streamable_http",
               "streamable_http": "streamable_http", "streamable-http": "streamable_http"}


class _Errors:
    def __init__(self, path: Path):
        self.path = str(path)
        self.items: list[SkillError] = []

    def add(self, line: int | None, message: str) -> None:
        self.items.append(SkillError(self.path, line, message))


def parse_skill_file(path: Path) -> Skill:
    """Read and parse one skill file. Raises only `SkillParseError`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SkillParseError([SkillError(str(path), None, f"cannot read file: {exc.strerror or exc}")]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SkillParseError([SkillError(str(path), line, "file is not valid UTF-8")]) from None
    return parse_skill_text(text, path)


def parse_skill_text(text: str, path: Path) -> Skill:
    """Parse skill text; the format follows the file name (`SKILL.md` = Agent Skills)."""
    path = Path(path)
    try:
        return _parse(text, path)
    except SkillParseError:
        raise
    except Exception as exc:  # defensive: the contract is "only SkillParseError"
        raise SkillParseError([SkillError(str(path), None, f"cannot parse skill: {type(exc).__name__}: {exc}")]) from None


# --------------------------------------------------------------------------- frontmatter


def _parse(text: str, path: Path) -> Skill:
    errs = _Errors(path)
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        errs.add(text[: text.index("\x00")].count("\n") + 1, "file contains a NUL byte")
        raise SkillParseError(errs.items)
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        errs.add(1, "file must start with a '---' frontmatter line")
        raise SkillParseError(errs.items)
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if close is None:
        errs.add(1, "frontmatter is not closed by a '---' line")
        raise SkillParseError(errs.items)
    fm_lines = lines[1:close]
    meta = _yaml(fm_lines, 2, errs, "frontmatter")
    if meta is _FAIL:
        raise SkillParseError(errs.items)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        errs.add(2, f"frontmatter must be a YAML mapping, got {_typename(meta)}")
        raise SkillParseError(errs.items)
    meta = {str(k): v for k, v in meta.items()}
    body_start = close + 1  # 0-based index of the first body line

    def key_line(key: str) -> int:
        for i, ln in enumerate(fm_lines):
            if re.match(rf"^{re.escape(key)}\s*:", ln):
                return i + 2
        return 2

    fields = _Fields(meta, errs, key_line)
    name = fields.text("name", required=True)
    description = fields.text("description", required=True)
    if path.name == AGENT_SKILLS_FILE:
        skill = _agent_skill(fields, name, description, lines, body_start, path)
    else:
        skill = _birdie_skill(fields, name, description, lines, body_start, path, errs)
    if errs.items:
        raise SkillParseError(errs.items)
    return skill


_FAIL = object()


def _yaml(lines: list[str], first_line: int, errs: _Errors, what: str) -> Any:
    """YAML-load `lines` (which start at 1-based `first_line`); errors mapped to file lines."""
    try:
        return _jsonable(yaml.safe_load("\n".join(lines)))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        ctx = getattr(exc, "context", None)
        msg = f"{problem} ({ctx})" if ctx else problem
        errs.add(line, f"YAML error in {what}: {msg}")
        return _FAIL
    except (ValueError, RecursionError) as exc:
        errs.add(first_line, f"YAML error in {what}: {exc}")
        return _FAIL


def _jsonable(value: Any, _memo: dict[int, Any] | None = None, _busy: set[int] | None = None) -> Any:
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
            out: Any = {(k if isinstance(k, str) else _scalar_str(k)): _jsonable(v, memo, busy) for k, v in value.items()}
        else:
            out = [_jsonable(v, memo, busy) for v in value]
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


def _scalar_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _typename(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            type(None): "nothing"}.get(type(value), f"a {type(value).__name__}")


class _Fields:
    """Typed access to frontmatter fields, recording an error per bad field."""

    def __init__(self, meta: dict[str, Any], errs: _Errors, key_line):
        self.meta, self.errs, self.key_line = meta, errs, key_line

    def err(self, key: str, message: str) -> None:
        self.errs.add(self.key_line(key), message)

    def text(self, key: str, *, required: bool = False, default: str | None = None) -> str | None:
        value = self.meta.get(key)
        if value is None:
            if required:
                self.errs.add(self.key_line(key) if key in self.meta else 1, f"missing required field '{key}'")
            return default
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.err(key, f"field '{key}' must be a string, got {_typename(value)}")
            return default
        value = str(value).strip()
        if required and not value:
            self.err(key, f"field '{key}' must not be empty")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.meta.get(key)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no", "on", "off"):
            return value.strip().lower() in ("true", "yes", "on")
        self.err(key, f"field '{key}' must be true or false, got {value!r}")
        return default

    def str_list(self, key: str, *, sep: str | None = ",") -> list[str]:
        value = self.meta.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            parts = value.split(sep) if sep else value.split()
            return [p.strip() for p in parts if p.strip()]
        if isinstance(value, list) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            return [str(v).strip() for v in value if str(v).strip()]
        self.err(key, f"field '{key}' must be a list of strings or a comma-separated string")
        return []

    def mapping(self, key: str) -> dict[str, Any]:
        value = self.meta.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.err(key, f"field '{key}' must be a mapping, got {_typename(value)}")
            return {}
        return value


def _agent_skill(f: _Fields, name, description, lines, body_start, path: Path) -> Skill:
    body = "\n".join(lines[body_start:]).strip() or None
    return Skill(
        name=name or "", description=description or "", path=path, format="agent-skills",
        license=f.text("license"), compatibility=f.text("compatibility"),
        metadata=f.mapping("metadata"), allowed_tools=f.str_list("allowed-tools", sep=None),
        body=body, resources=_resources(path.parent),
    )


def _resources(folder: Path) -> list[str]:
    found: list[str] = []
    for sub in RESOURCE_DIRS:
        root = folder / sub
        try:
            if not root.is_dir():
                continue
            found.extend(p.relative_to(folder).as_posix() for p in root.rglob("*") if p.is_file())
        except OSError:
            continue
    return sorted(found)


# --------------------------------------------------------------------------- birdie


def _birdie_skill(f: _Fields, name, description, lines, body_start, path: Path, errs: _Errors) -> Skill:
    version = f.meta.get("version", "1.0.0")
    if isinstance(version, bool) or not isinstance(version, (str, int, float)):
        f.err("version", f"field 'version' must be a string, got {_typename(version)}")
        version = "1.0.0"
    tags = f.str_list("tags")
    always = f.flag("always_inject", False)
    mcp = _mcp(f) if "mcp_server" in f.meta else None

    sections = _sections(lines, body_start)
    tools: list[SkillTool] = []
    permissions: dict[str, Any] = {}
    for title, head, start, end in sections:
        if title.lower() == "tools":
            tools.extend(_tools(lines, start, end, name or "", tags, errs, already=tools))
        elif title.lower() == "permissions":
            permissions.update(_permissions(lines, start, end, head, errs))

    special = [(h, e) for t, h, _s, e in sections if t.lower() in ("tools", "permissions")]
    if not tools:
        kept = [ln for i, ln in enumerate(lines[body_start:], body_start) if not any(h <= i < e for h, e in special)]
        body = "\n".join(kept).strip() or None
    elif always:
        first_tools = min(h for t, h, _s, _e in sections if t.lower() == "tools")
        kept = [ln for i, ln in enumerate(lines[body_start:first_tools], body_start)
                if not any(h <= i < e for h, e in special)]
        body = "\n".join(kept).strip() or None
    else:
        body = None

    return Skill(
        name=name or "", description=description or "", path=path, format="birdie",
        version=str(version).strip() or "1.0.0", tags=tags, triggers=f.str_list("triggers"),
        enabled_by_default=f.flag("enabled_by_default", True), always_inject=always,
        tool_tags=f.str_list("tool_tags"), mcp_server=mcp, tools=tools, body=body,
        permissions=permissions,
    )


def _mcp(f: _Fields) -> MCPServerConfig | None:
    raw = f.meta.get("mcp_server")
    if not isinstance(raw, dict):
        f.err("mcp_server", f"field 'mcp_server' must be a mapping, got {_typename(raw)}")
        return None
    sub = _Fields(raw, f.errs, lambda _k: f.key_line("mcp_server"))
    transport = (sub.text("transport") or "stdio").lower()
    if transport not in _TRANSPORTS:
        f.err("mcp_server", f"mcp_server: unknown transport '{transport}' (expected stdio, sse or http)")
        return None
    transport = _TRANSPORTS[transport]
    args = raw.get("args") or []
    if isinstance(args, str):
        args = args.split()
    if not isinstance(args, list) or any(isinstance(a, (dict, list)) for a in args):
        f.err("mcp_server", "mcp_server: 'args' must be a list of strings")
        args = []
    cfg = MCPServerConfig(
        transport=transport, command=sub.text("command"), args=[_scalar_str(a) for a in args],
        env={k: _scalar_str(v) for k, v in sub.mapping("env").items()}, cwd=sub.text("cwd"),
        url=sub.text("url"), headers={k: _scalar_str(v) for k, v in sub.mapping("headers").items()},
    )
    if transport == "stdio" and not cfg.command:
        f.err("mcp_server", "mcp_server: transport 'stdio' needs a 'command'")
    if transport != "stdio" and not cfg.url:
        f.err("mcp_server", f"mcp_server: transport '{transport}' needs a 'url'")
    return cfg


def _sections(lines: list[str], body_start: int) -> list[tuple[str, int, int, int]]:
    """`## ` sections as (title, heading index, first content index, end index), 0-based."""
    heads: list[tuple[str, int]] = []
    fenced = False
    for i in range(body_start, len(lines)):
        if _FENCE.match(lines[i]):
            fenced = not fenced
            continue
        m = None if fenced else _H2.match(lines[i])
        if m:
            heads.append((m.group(1).strip(), i))
    out = []
    for n, (title, i) in enumerate(heads):
        end = heads[n + 1][1] if n + 1 < len(heads) else len(lines)
        out.append((title, i, i + 1, end))
    return out


def _tools(lines, start, end, skill_name, tags, errs: _Errors, already) -> list[SkillTool]:
    blocks: list[tuple[str, int, int]] = []  # (name, heading index, end index)
    for i in range(start, end):
        m = _H3.match(lines[i])
        if m:
            if blocks:
                blocks[-1] = (blocks[-1][0], blocks[-1][1], i)
            blocks.append((m.group(1).strip().strip("`").strip(), i, end))
    seen = {t.name: t.line for t in already}
    tools = []
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
            tools.append(tool)
    return tools


def _tool_block(name, lines, start, stop, skill_name, tags, errs: _Errors) -> SkillTool | None:
    head_line = start  # 1-based line of the ### heading == 0-based index of first content line
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
        if ln.startswith("#") or _FENCE.match(ln):  # comment or ``` fence around the block
            if current is not None:
                segments[current][1].append("")
            continue
        m = _KEY.match(ln)
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

    values: dict[str, Any] = {}
    for key, (idx, seg) in segments.items():
        if key not in ("description", "entrypoint", "schema"):
            continue  # unknown keys are ignored
        value = _segment_value(key, idx, seg, name, errs)
        if value is _FAIL:
            ok = False
        else:
            values[key] = value

    description = values.get("description")
    entrypoint = values.get("entrypoint")
    if "description" not in segments or description in (None, ""):
        errs.add(head_line, f"tool '{name}': missing 'description'")
        ok = False
    elif isinstance(description, (dict, list)):
        errs.add(segments["description"][0] + 1, f"tool '{name}': description must be text")
        ok = False
    if "entrypoint" not in segments or entrypoint in (None, ""):
        errs.add(head_line, f"tool '{name}': missing 'entrypoint'")
        ok = False
    elif not isinstance(entrypoint, str) or ":" not in entrypoint:
        errs.add(segments["entrypoint"][0] + 1, f"tool '{name}': entrypoint must look like 'scheme:target'")
        ok = False
    schema = _schema(values.get("schema"), name, segments.get("schema", (head_line - 1, []))[0] + 1, errs)
    if schema is None or not ok:
        return None
    return SkillTool(name=name, description=_scalar_str(description).strip(), entrypoint=entrypoint.strip(),
                     schema=schema, skill=skill_name, tags=list(tags), line=head_line)


def _segment_value(key: str, idx: int, seg: list[str], tool: str, errs: _Errors) -> Any:
    first = _KEY.match(seg[0])
    raw = (first.group(2) if first else "").strip()
    if key == "entrypoint" and raw and raw[0] not in "|>":
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            raw = raw[1:-1]
        extra = " ".join(s.strip() for s in seg[1:] if s.strip())
        return f"{raw} {extra}".strip()
    holder = _Errors(Path(errs.path))
    value = _yaml(seg, idx + 1, holder, f"tool '{tool}'")
    if value is not _FAIL and isinstance(value, dict) and key in value:
        return value[key]
    if key == "description":  # lenient: plain text, e.g. "Note: this has a colon"
        if raw in ("|", ">", "|-", ">-", "|+", ">+"):
            return "\n".join(s.strip() for s in seg[1:]).strip()
        return " ".join([raw] + [s.strip() for s in seg[1:] if s.strip()]).strip()
    errs.items.extend(holder.items or [SkillError(errs.path, idx + 1, f"tool '{tool}': cannot read '{key}'")])
    return _FAIL


def _schema(value: Any, tool: str, line: int, errs: _Errors) -> dict[str, Any] | None:
    if value is None:
        return {"type": "object", "properties": {}}
    if not isinstance(value, dict):
        errs.add(line, f"tool '{tool}': schema must be a mapping, got {_typename(value)}")
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
    return schema


def _permissions(lines, start, end, head, errs: _Errors) -> dict[str, Any]:
    body = []
    for ln in lines[start:end]:
        if _FENCE.match(ln):
            body.append("")
            continue
        body.append(ln[2:] if re.match(r"^- [A-Za-z_][\w-]*\s*:", ln) else ln)
    value = _yaml(body, start + 1, errs, "'## Permissions'")
    if value is _FAIL or value is None:
        return {}
    if not isinstance(value, dict):
        errs.add(head + 1, f"'## Permissions' must be a YAML mapping, got {_typename(value)}")
        return {}
    rule = value.get("require_approval")
    if rule is not None and not isinstance(rule, (bool, str, list)):
        errs.add(head + 1, "'require_approval' must be true/false, a tool name or a list of tool names")
    return value
