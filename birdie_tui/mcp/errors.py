"""Turning MCP failures into one line a user can act on (shown in the sidebar and /mcp)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from langchain_core.tools import ToolException

from birdie_tui.mcp.config import ServerSpec
from birdie_tui.secrets import scrub
from birdie_tui.text import one_line

MAX_LINE = 300


class MCPCallError(ToolException):
    """A tool call that could not be answered: becomes an error tool result, never a crash."""


def _leaves(exc: BaseException) -> list[BaseException]:
    """anyio task groups wrap the real cause in (nested) exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [exc]


def root_cause(exc: BaseException) -> BaseException:
    leaves = _leaves(exc)
    real = [e for e in leaves if not isinstance(e, (asyncio.CancelledError, GeneratorExit))]
    return (real or leaves)[0]


def log_tail(path: Path, since: int = 0, limit: int = 4096) -> str | None:
    """The last line the server wrote to its log after `since` (usually what it died of)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(since, fh.tell() - limit))
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.strip() and not line.startswith("--- birdie "):
            return line.strip()
    return None


def describe_failure(exc: BaseException, spec: ServerSpec, timeout: float, log: Path,
                     log_start: int = 0) -> str:
    cause = root_cause(exc)
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    if isinstance(cause, TimeoutError):
        message = f"no answer within {timeout:g} s of starting (start timeout)"
    elif isinstance(cause, asyncio.CancelledError):
        message = "start-up was cancelled"
    elif isinstance(cause, FileNotFoundError):
        message = text if text.startswith("command not found") else f"not found: {text}"
    elif isinstance(cause, PermissionError):
        message = f"cannot run {spec.command}: permission denied"
    elif type(cause).__name__ == "McpError" and "closed" in text.lower():
        message = "the server exited during start-up"
    elif type(cause).__name__ in ("ConnectError", "ConnectTimeout"):
        message = f"cannot connect to {spec.url}"
    elif type(cause).__name__ == "HTTPStatusError":
        message = f"{spec.url}: {text}"
    else:
        message = one_line(cause)
    if spec.transport == "stdio":
        last = log_tail(log, log_start)
        if last and not isinstance(cause, FileNotFoundError):
            message += f" — {last}"
    return scrub(message)[:MAX_LINE]
