"""The common Markdown agent file: YAML frontmatter, the body as the agent's system prompt.

The shape Claude Code (`.claude/agents/*.md`), OpenCode (`.opencode/agent/*.md`), goose,
deepagents and agent.md share (docs/agents.md maps their fields): `name` (default: the file's
stem), `description` (required), and optionally `model` (a model name, or `vendor:model` /
`vendor/model` when the prefix is a vendor Birdie knows; `inherit` is the session's model),
`temperature`, `max_tokens`, `tools` and `skills` (a YAML list or "a, b"), `mcp` (servers for
this agent: each a mapping with `name` and `command` [+ `args`, `env`] or `url`),
`enabled_by_default`, `recursion_limit`, `max_tool_repetitions`, and the trigger keys
(`every`, `cron`, `watch`, ...: `agent_files/triggers.py`). Any other key (Claude Code's
`color`, OpenCode's `mode`) is kept in `extra`, never an error.

The agent takes one free-text input, `task`, which is the child's whole user message.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from birdie_tui.agent_files.fields import Fields, load_frontmatter, typename
from birdie_tui.agent_files.models import AgentDef, AgentFileError, AgentParam, AgentProblem
from birdie_tui.agent_files.triggers import TRIGGER_KEYS, agent_triggers
from birdie_tui.providers.config import VENDORS

TASK = AgentParam("task", "string", "What the agent should do", True)
TASK_PROMPT = "{{ task }}"
# Other tools' names for a vendor Birdie knows by another (OpenCode writes google/gemini-...).
_VENDOR_ALIASES = {"google": "gemini"}
_KNOWN_KEYS = {"name", "description", "model", "temperature", "max_tokens", "tools", "skills",
               "mcp", "enabled_by_default", "recursion_limit", "max_tool_repetitions"}
_MCP_KEYS = {"name", "command", "args", "env", "url", "transport", "type", "headers", "cwd"}


def parse_markdown_agent(text: str, path: Path, *, default_name: str | None = None) -> AgentDef:
    """One Markdown agent file's text as an `AgentDef` (named `default_name`, else the file's
    stem, when its frontmatter has no `name`); `AgentFileError` when it cannot be one."""
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise AgentFileError(AgentProblem(path, line, "the file contains a NUL byte (is it "
                                          "binary?)"))
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[0].rstrip() != "---":
        raise AgentFileError(AgentProblem(path, 1, "no YAML frontmatter: an agent file starts "
                                          "with a '---' line (name, description), then '---'"))
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if close is None:
        raise AgentFileError(AgentProblem(path, 1, "the frontmatter is not closed by a '---' "
                                          "line"))
    yaml_text = "\n".join(lines[1:close])
    meta = load_frontmatter(yaml_text, 2, path)
    fields = Fields(meta, yaml_text, 2, path)
    name = fields.text("name")
    name = fields.tool_name(name if name is not None else (default_name or path.stem))
    vendor, model = _model(fields)
    # OpenCode's `tools: {write: false}` switches its own tools: kept in `extra`, not read.
    tool_switches = isinstance(meta.get("tools"), dict)
    return AgentDef(
        name=name, description=fields.required_text("description"), prompt=TASK_PROMPT,
        vendor=vendor, model=model, temperature=fields.number("temperature"),
        max_tokens=fields.integer("max_tokens", None),
        enabled_by_default=fields.flag("enabled_by_default", False),
        allowed_skills=fields.names("skills", comma_text=True),
        tools=() if tool_switches else fields.names("tools", comma_text=True), mcp=_mcp(fields),
        recursion_limit=fields.integer("recursion_limit", 25, minimum=1) or 25,
        max_tool_repetitions=fields.integer("max_tool_repetitions", 3, minimum=0) or 0,
        inputs=(TASK,), system_prompt="\n".join(lines[close + 1:]).strip(),
        format="markdown", path=path, triggers=agent_triggers(fields, name, (TASK,)),
        extra={k: v for k, v in meta.items() if k not in TRIGGER_KEYS
               and (k not in _KNOWN_KEYS or (k == "tools" and tool_switches))})


def _model(fields: Fields) -> tuple[str | None, str | None]:
    model = fields.text("model")
    if model is None or not model.strip() or model.strip() == "inherit":
        return None, None
    model = model.strip()
    found = re.match(r"^([A-Za-z0-9_-]+)[:/](.+)$", model)
    if found:
        vendor = _VENDOR_ALIASES.get(found.group(1).lower(), found.group(1).lower())
        if vendor in VENDORS:
            return vendor, found.group(2)
    # No known vendor in front (`llama3:8b`, `meta-llama/llama-3`): all of it is the model.
    return None, model


def _mcp(fields: Fields) -> tuple[dict[str, Any], ...]:
    value = fields.meta.get("mcp")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise fields.fail("mcp", f"field 'mcp' must be a list of servers, got {typename(value)}")
    servers: list[dict[str, Any]] = []
    for i, entry in enumerate(value, 1):
        where = f"mcp server #{i}"
        if not isinstance(entry, dict):
            raise fields.fail("mcp", f"{where} must be a mapping (name, command or url), "
                                     f"got {typename(entry)}")
        server = _server(fields, entry, where)
        if any(s["name"] == server["name"] for s in servers):
            raise fields.fail("mcp", f"{where}: the name {server['name']!r} is used twice")
        servers.append(server)
    return tuple(servers)


def _server(fields: Fields, entry: dict[str, Any], where: str) -> dict[str, Any]:
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fields.fail("mcp", f"{where} needs a 'name'")
    where = f"mcp server {name!r}"
    unknown = sorted(set(entry) - _MCP_KEYS)
    if unknown:
        raise fields.fail("mcp", f"{where}: unknown key(s) {', '.join(unknown)} (known: "
                                 f"{', '.join(sorted(_MCP_KEYS))})")
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        raise fields.fail("mcp", f"{where} needs either 'command' (a local server) or 'url'")
    if isinstance(command, list):  # OpenCode's ["npx", "-y", "server"]
        if not command or not all(isinstance(a, str) and a for a in command):
            raise fields.fail("mcp", f"{where}: 'command' must be text or a list of words")
        command = command[0]
    for key, value in (("command", command), ("url", url), ("transport", entry.get("transport")),
                       ("type", entry.get("type")), ("cwd", entry.get("cwd"))):
        if value is None:
            continue
        if not (isinstance(value, str) and value.strip()):
            raise fields.fail("mcp", f"{where}: '{key}' must be text")
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) and
                                             not isinstance(a, bool) for a in args):
        raise fields.fail("mcp", f"{where}: 'args' must be a list of words")
    for key in ("env", "headers"):
        mapping = entry.get(key, {})
        if not isinstance(mapping, dict) or not all(
                isinstance(v, (str, int, float)) and not isinstance(v, bool)
                for v in mapping.values()):
            raise fields.fail("mcp", f"{where}: '{key}' must be a mapping of names to text")
    return dict(entry)
