"""`bash:` tool calls done through the front end's workspace (`birdie_tui/workspace.py`).

A front end that hosts the turn (an editor over the Agent Client Protocol) may read and write
files and run commands itself. When the turn has such a workspace (`using_workspace`, set by
the graph's tool step around the calls it runs), a `bash:` call goes to it as follows;
anything the workspace does not offer runs in this process as before:

- a write: a path argument plus the file's whole new text, in a template that writes it with
  `> {path}` (as skills/filesystem/SKILL.MD write_file), or a path plus an old/new edit pair:
  the new text is computed here (an edit reads the file through the workspace when it can,
  replaces once, and refuses when the old text is absent) and written with `write_text`. The
  template is not run. The arguments are the ones the approval diff reads (`file_args.py`), so
  what the user approved is what is written;
- a plain read, a template that is only `cat -- {path}`: `read_text`;
- any other `bash:` call: the argv this process would spawn (`BASH_COMMAND` plus the script of
  `bash_args.py`, values out of band in environment variables) runs through `run`.

Approvals, rules and the read-only mode decide before any of this (`agent/graph.py`).
`python:`, `http:` and MCP tools always run in this process.

The workspace reaches the tools as a context variable: the tools are LangChain tools built
once per session (`adapter.py`), so a per-turn object cannot be bound into them; the graph's
tool step sets it around the calls of that step, and each call runs in a copy of that context.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from birdie_tui.text import one_line
from birdie_tui.workspace import Workspace, WorkspaceError

from birdie_tui.file_args import absolute, edit_pair, new_text_key, path_arg
from .output import CAPTURE_CHARS, INVALID, TIMEOUT, ToolOutcome, failed_why, timed_out_text

_WORKSPACE: ContextVar[Workspace | None] = ContextVar("birdie_turn_workspace", default=None)
_CALL_ID: ContextVar[str | None] = ContextVar("birdie_tool_call_id", default=None)
_PLAIN_READ = re.compile(r"cat\s+(?:--\s+)?\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Bytes of a command's output the workspace keeps: what could be shown, in UTF-8's worst case.
OUTPUT_LIMIT = CAPTURE_CHARS * 4


@contextlib.contextmanager
def _bound(var: ContextVar[Any], value: Any) -> Iterator[None]:
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def using_workspace(workspace: Workspace | None) -> contextlib.AbstractContextManager[None]:
    """The tool calls run inside use `workspace` (None: they run in this process)."""
    return _bound(_WORKSPACE, workspace)


def tool_call(call_id: str | None) -> contextlib.AbstractContextManager[None]:
    """The model's call id of the tool running inside (a workspace's terminal is tied to it)."""
    return _bound(_CALL_ID, call_id)


def current_workspace() -> Workspace | None:
    return _WORKSPACE.get()


def _why(exc: Exception) -> str:
    return one_line(exc, as_is=(WorkspaceError,))  # a WorkspaceError's text is the line


def _here(path: str) -> str:
    """`path` made absolute against this process's working directory, where tools run, for a
    front end that has no idea of it."""
    return absolute(path, os.getcwd())


async def file_call(workspace: Workspace, template: str, args: dict[str, Any]) -> ToolOutcome | None:
    """A write or a plain read of a `bash:` tool done through `workspace`; None when the call
    is neither, or the workspace does not offer it (then it runs as any other call)."""
    found = path_arg(args)
    if workspace.can_write and found is not None:
        key, path = found
        text_key, edit = new_text_key(args), edit_pair(args)
        if text_key is not None and _writes_whole(template, key):
            return await _write(workspace, path, args[text_key])
        if text_key is None and edit is not None:
            return await _edit(workspace, path, *edit)
    m = _PLAIN_READ.fullmatch(template.strip())
    if workspace.can_read and m and isinstance(args.get(m.group(1)), str):
        return await _read(workspace, args[m.group(1)])
    return None


def _writes_whole(template: str, key: str) -> bool:
    """The template writes the file named by `{key}` whole (`> {key}`), not appends to it or
    uses it otherwise: only then is the call a write of the new text."""
    return re.search(r"(?<![>&0-9])>\|?\s*[\"']?\{" + re.escape(key) + r"\}", template) is not None


async def _write(workspace: Workspace, path: str, content: str) -> ToolOutcome:
    try:
        await workspace.write_text(_here(path), content)
    except WorkspaceError as exc:
        return ToolOutcome(f"could not write {path}: {_why(exc)}", True)
    n = len(content.encode("utf-8", errors="surrogatepass"))
    return ToolOutcome(f"Wrote {n} byte{'' if n == 1 else 's'} to {path}\n")


async def _edit(workspace: Workspace, path: str, old: str, new: str) -> ToolOutcome:
    try:
        if workspace.can_read:
            before = await workspace.read_text(_here(path))
        else:
            before = Path(_here(path)).read_text(encoding="utf-8", errors="replace")
    except (WorkspaceError, OSError) as exc:
        return ToolOutcome(f"could not read {path} to edit it: {_why(exc)}", True)
    if old and old not in before:  # as the approval diff said: nothing is written
        return ToolOutcome(f"could not edit {path}: the text to replace is not in the file",
                           True, INVALID)
    return await _write(workspace, path, before.replace(old, new, 1))


async def _read(workspace: Workspace, path: str) -> ToolOutcome:
    try:
        return ToolOutcome(await workspace.read_text(_here(path)))
    except WorkspaceError as exc:
        return ToolOutcome(f"could not read {path}: {_why(exc)}", True)


async def run_call(workspace: Workspace, name: str, argv: list[str], values: dict[str, str],
                   timeout: float, env_allow: Iterable[str] = ()) -> ToolOutcome:
    """`argv` (what this process would spawn) run by `workspace`, its result worded as a local
    run's. The environment sent is the values' variables and the variables the skill's `env:`
    passes on, never the rest of this process's environment (secrets stay here)."""
    env = {k: os.environ[k] for k in env_allow if k in os.environ}
    env.update(values)
    try:
        result = await workspace.run(argv, cwd=os.getcwd(), env=env, timeout_s=timeout,
                                     output_limit=OUTPUT_LIMIT, call_id=_CALL_ID.get())
    except WorkspaceError as exc:
        return ToolOutcome(f"could not run {name} in the client's terminal: {_why(exc)}", True)
    output = result.output
    if result.truncated:
        output = "… [the start of the output was dropped]\n" + output
    if result.timed_out:
        return ToolOutcome(timed_out_text(timeout, output.strip(), "output"), True, TIMEOUT)
    if result.exit_code != 0:
        said = f"\n[output]\n{output.rstrip()}" if output.strip() else ""
        return ToolOutcome(f"Command {failed_why(result.exit_code, result.signal)}.{said}", True)
    return ToolOutcome(output)


__all__ = ["OUTPUT_LIMIT", "current_workspace", "file_call", "run_call", "tool_call",
           "using_workspace"]
