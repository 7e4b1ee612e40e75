"""What a turn's events and a session's history look like to an ACP client: `session/update`
payloads built from the door's events (`birdie_tui.events`) and transcript rows.

A tool call is told once when it starts (kind, title, the files it touches, its arguments)
and once when it ends (status, output; a file write carries a `diff` block the editor can
show). Nothing here talks to the client: `server.py` sends what these functions build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UserMessageChunk,
)

from birdie_tui.file_args import absolute, edit_pair, new_text_key, path_arg
from birdie_tui.service.rows import TranscriptItem

Update = AgentMessageChunk | UserMessageChunk | ToolCallStart | ToolCallProgress | AgentPlanUpdate

DIFF_READ_LIMIT = 512 * 1024  # bytes of a file read to show a write's diff
TITLE_LIMIT = 120
_KIND_WORDS: tuple[tuple[ToolKind, tuple[str, ...]], ...] = (
    ("delete", ("delete", "remove", "unlink", "rm_")),
    ("move", ("move", "rename", "mv_")),
    ("edit", ("write", "edit", "patch", "replace", "append", "create", "save", "insert")),
    ("search", ("search", "grep", "find", "glob", "lookup", "query")),
    ("read", ("read", "list", "cat", "show", "get_", "view", "ls", "stat", "head", "tail")),
    ("execute", ("bash", "shell", "run", "exec", "command", "script", "terminal", "git")),
    ("fetch", ("fetch", "http", "url", "download", "web", "curl", "weather", "api")),
    ("think", ("plan", "think", "todo", "note", "remember")),
)


# The bundled planning skill's list (skills/planning/tools.py `todo_list`): "[x] #3 text".
_TODO_LINE = re.compile(r"^\[( |x)\] #\d+ (.+)$")


def plan_of(tool: str, output: str) -> AgentPlanUpdate | None:
    """The model's plan, when it keeps one with the planning skill: each `todo_list` result is
    the whole list, sent as the session's plan."""
    if tool != "todo_list":
        return None
    entries = [plan_entry(found.group(2), status="completed" if found.group(1) == "x"
                          else "pending")
               for line in output.splitlines() if (found := _TODO_LINE.match(line.strip()))]
    if not entries and "empty" not in output:
        return None
    return update_plan(entries)


def message_chunk(text: str) -> AgentMessageChunk:
    return update_agent_message_text(text)


def tool_kind(name: str, args: dict[str, Any]) -> ToolKind:
    """What kind of work a call does, for the editor's icon: from how the tool is named, and
    a call that gives a path and new content is an edit whatever its name."""
    if _path_arg(args) is not None and (_new_text(args) is not None or edit_pair(args)):
        return "edit"
    lowered = name.lower()
    for kind, words in _KIND_WORDS:
        if any(word in lowered for word in words):
            return kind
    return "other"


def tool_title(name: str, args: dict[str, Any]) -> str:
    """`name(the first argument that says most)`, one line, bounded."""
    shown = ""
    path = _path_arg(args)
    for key in ("command", "cmd", "path", "pattern", "query", "url", "city"):
        value = path if key == "path" else args.get(key)
        if isinstance(value, str) and value.strip():
            shown = value.strip().splitlines()[0]
            break
    title = f"{name}({shown})" if shown else name
    return title if len(title) <= TITLE_LIMIT else title[:TITLE_LIMIT - 1] + "…"


def _path_arg(args: dict[str, Any]) -> str | None:
    found = path_arg(args)
    return found[1] if found is not None and found[1].strip() else None


def _new_text(args: dict[str, Any]) -> str | None:
    key = new_text_key(args)
    return args[key] if key is not None else None


def read_for_diff(path: str) -> str | None:
    try:
        target = Path(path)
        if not target.is_file():
            return None
        if target.stat().st_size > DIFF_READ_LIMIT:
            return None
        return target.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@dataclass
class ToolCalls:
    """The calls of one turn on their way to the client: what a write is about to change is
    read when the call starts, so its `diff` shows the file as it was."""

    cwd: str
    _edits: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # call id -> tool

    def started(self, call_id: str, name: str, args: dict[str, Any]) -> ToolCallStart:
        path = _path_arg(args)
        locations = [ToolCallLocation(path=absolute(path, self.cwd))] if path else None
        kind = tool_kind(name, args)
        if path is not None and kind == "edit":
            self._remember_edit(call_id, absolute(path, self.cwd), args)
        return start_tool_call(call_id, tool_title(name, args), kind=kind, status="pending",
                               locations=locations, raw_input=args)

    def _remember_edit(self, call_id: str, path: str, args: dict[str, Any]) -> None:
        before = read_for_diff(path)
        new_text = _new_text(args)
        if new_text is None:
            pair = edit_pair(args)
            if pair is None or before is None or pair[0] not in before:
                return
            new_text = before.replace(pair[0], pair[1], 1)
        self._edits[call_id] = (path, before, new_text)

    def running(self, call_id: str) -> ToolCallProgress:
        return update_tool_call(call_id, status="in_progress")

    def finished(self, call_id: str, output: str, error: bool) -> ToolCallProgress:
        content: list[Any] = []
        edit = self._edits.pop(call_id, None)
        if edit is not None and not error:
            path, before, after = edit
            content.append(tool_diff_content(path, after, before))
        if output:
            content.append(tool_content(text_block(output)))
        return update_tool_call(call_id, status="failed" if error else "completed",
                                content=content or None, raw_output=output)


def replay(items: list[TranscriptItem], cwd: str) -> list[Update]:
    """A stored session as the updates a client would have seen live (`session/load`)."""
    updates: list[Update] = []
    calls = ToolCalls(cwd)
    named: dict[str, str] = {}
    for item in items:
        if item.role == "user" and item.content:
            updates.append(update_user_message_text(item.content))
        elif item.role == "assistant":
            if item.content.strip():
                updates.append(update_agent_message_text(item.content))
            for call in item.tool_calls:
                named[call.id] = call.name or "tool"
                start = start_tool_call(call.id, tool_title(call.name or "tool", dict(call.args)),
                                        kind=tool_kind(call.name or "tool", dict(call.args)),
                                        status="pending", raw_input=dict(call.args))
                updates.append(start)
        elif item.role == "tool" and item.tool_call_id:
            if item.tool_call_id not in named:  # a result whose call was compacted away
                updates.append(start_tool_call(item.tool_call_id, item.name or "tool",
                                               kind=tool_kind(item.name or "tool", {}),
                                               status="pending"))
                named[item.tool_call_id] = item.name or "tool"
            updates.append(calls.finished(item.tool_call_id, item.content, item.error))
    return updates
