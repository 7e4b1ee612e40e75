"""Parsing one skill file (Birdie `SKILL.MD` or Agent Skills `SKILL.md`) into a `Skill`.

Owns the file format: frontmatter splitting, field validation, `## Tools` / `## Permissions`
sections, body extraction. Every problem becomes a `SkillError` with a line in the original
file; all of them are raised together as one `SkillParseError` (and nothing else, ever).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Callable

from birdie_tui.regular_files import open_regular

from . import sections as _sec
from .models import MCPServerConfig, Skill, SkillError, SkillParseError, SkillTool
from .parse_util import FAIL as _FAIL
from .parse_util import Errors as _Errors
from .parse_util import load_yaml as _yaml
from .parse_util import scalar_str as _scalar_str
from .parse_util import typename as _typename
from .safe_yaml import MAX_FILE_BYTES

BIRDIE_FILE = "SKILL.MD"
AGENT_SKILLS_FILE = "SKILL.md"
RESOURCE_DIRS = ("scripts", "references", "assets")

_TRANSPORTS = {"stdio": "stdio", "sse": "sse", "http": "streamable_http",
               "streamable_http": "streamable_http", "streamable-http": "streamable_http"}


def parse_skill_file(path: Path) -> Skill:
    """Read and parse one skill file. Raises only `SkillParseError`."""
    path = Path(path)
    try:
        # Regular files only (a FIFO would block forever, /dev/zero never end); never more
        # than the limit (+1 to know it was crossed).
        with os.fdopen(open_regular(path), "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
            size = os.fstat(fh.fileno()).st_size if len(data) > MAX_FILE_BYTES else len(data)
    except OSError as exc:
        raise SkillParseError([SkillError(str(path), None, f"cannot read file: {exc.strerror or exc}")]) from None
    if len(data) > MAX_FILE_BYTES:
        raise SkillParseError([_too_big(path, size)])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SkillParseError([SkillError(str(path), line, "file is not valid UTF-8")]) from None
    return parse_skill_text(text, path)


def parse_skill_text(text: str, path: Path) -> Skill:
    """Parse skill text; the format follows the file name (`SKILL.md` = Agent Skills)."""
    path = Path(path)
    size = len(text) if len(text) > MAX_FILE_BYTES else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:  # (more characters than the limit: more bytes too)
        raise SkillParseError([_too_big(path, size)])
    try:
        return _parse(text, path)
    except SkillParseError:
        raise
    except Exception as exc:  # defensive: the contract is "only SkillParseError"
        raise SkillParseError([SkillError(str(path), None, f"cannot parse skill: {type(exc).__name__}: {exc}")]) from None


def _too_big(path: Path, size: int) -> SkillError:
    return SkillError(str(path), None, f"file is too large ({size:,} bytes); skill files are limited to "
                                       f"{MAX_FILE_BYTES // 1024 // 1024} MB ({MAX_FILE_BYTES:,} bytes)")


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


class _Fields:
    """Typed access to frontmatter fields, recording an error per bad field."""

    def __init__(self, meta: dict[str, Any], errs: _Errors, key_line: Callable[[str], int]):
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


def _agent_skill(f: _Fields, name: str | None, description: str | None, lines: list[str], body_start: int,
                 path: Path) -> Skill:
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


def _birdie_skill(f: _Fields, name: str | None, description: str | None, lines: list[str], body_start: int,
                  path: Path, errs: _Errors) -> Skill:
    version = f.meta.get("version", "1.0.0")
    if isinstance(version, bool) or not isinstance(version, (str, int, float)):
        f.err("version", f"field 'version' must be a string, got {_typename(version)}")
        version = "1.0.0"
    tags = f.str_list("tags")
    always = f.flag("always_inject", False)
    mcp = _mcp(f) if "mcp_server" in f.meta else None

    sections = _sec.sections(lines, body_start)
    tools: list[SkillTool] = []
    seen: dict[str, int] = {}  # tool name -> line, across `## Tools` sections
    capabilities: dict[str, None] = {}  # ordered set
    rules: dict[str, Any] = {}
    for title, head, start, end in sections:
        if title.lower() == "tools":
            tools.extend(_sec.tools(lines, start, end, name or "", tags, errs, seen))
        elif title.lower() == "permissions":
            names, more = _sec.permissions(lines, start, end, head, errs)
            capabilities.update(dict.fromkeys(names))
            rules.update(more)

    special = {i for t, h, _s, e in sections if t.lower() in ("tools", "permissions") for i in range(h, e)}
    if not tools:
        kept = [ln for i, ln in enumerate(lines[body_start:], body_start) if i not in special]
        body = "\n".join(kept).strip() or None
    elif always:
        first_tools = min(h for t, h, _s, _e in sections if t.lower() == "tools")
        kept = [ln for i, ln in enumerate(lines[body_start:first_tools], body_start) if i not in special]
        body = "\n".join(kept).strip() or None
    else:
        body = None

    return Skill(
        name=name or "", description=description or "", path=path, format="birdie",
        version=str(version).strip() or "1.0.0", tags=tags, triggers=f.str_list("triggers"),
        enabled_by_default=f.flag("enabled_by_default", True), always_inject=always,
        tool_tags=f.str_list("tool_tags"), mcp_server=mcp, tools=tools, body=body,
        permissions=tuple(capabilities), permission_rules=rules, location=_location(f),
        env=f.str_list("env"),
    )


def _location(f: _Fields) -> str | None:
    """Newer Birdie's `location`: a non-empty string when given (absent: None, the name)."""
    if "location" not in f.meta:
        return None
    value = f.text("location")
    if f.meta["location"] is None or value == "":
        f.err("location", "field 'location' must not be empty (leave it out to use the name)")
        return None
    return value


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
