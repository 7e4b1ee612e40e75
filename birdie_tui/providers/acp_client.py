"""Birdie as the ACP *client* of an agent it uses as its model: session updates routed to the
model call of their session, the agent's permission requests answered by the approval mode,
and the agent's file reads and writes done locally inside its working folder.

Permissions: the agent's own `session/request_permission` cannot reach the approval dialog
(the question would stop the graph mid model call), so the session's approval mode answers
it: auto allows once, read-only rejects, ask rejects and logs that it did. Birdie's own tools
never need it: the agent calls them over the MCP bridge, where the turn's verdict applies.
No terminal is offered: the agent runs commands through Birdie's tools or not at all.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    WriteTextFileResponse,
)

from birdie_tui.providers.acp_turn import TurnSeam

log = logging.getLogger(__name__)

MODE_ANSWERS = {"auto": ("allow_once", "allow_always"), "read-only": ("reject_once", "reject_always"),
                "ask": ("reject_once", "reject_always")}


@dataclass
class CallSink:
    """What one model call hears from its agent session."""

    seam: TurnSeam | None
    cwd: Path
    text: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    heard: asyncio.Event = field(default_factory=asyncio.Event)  # any update: not idle
    usage: dict[str, int] = field(default_factory=dict)  # the last usage_update (used, size)

    @property
    def mode(self) -> str:
        return self.seam.mode if self.seam is not None else "ask"


class AgentClient:
    """The `acp.Client` the provider's connection dispatches to (one per agent process)."""

    def __init__(self) -> None:
        self.sinks: dict[str, CallSink] = {}

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        sink = self.sinks.get(session_id)
        if sink is None:
            return  # a call that ended (or was cancelled) still hearing from its agent
        sink.heard.set()
        if isinstance(update, AgentMessageChunk):
            if isinstance(update.content, TextContentBlock) and update.content.text:
                sink.text.put_nowait(update.content.text)
        elif isinstance(update, UsageUpdate):
            sink.usage = {"used": update.used, "size": update.size}
        elif isinstance(update, (ToolCallStart, ToolCallProgress)):
            # Birdie's own tools show as the turn's tool events (acp_relay.py); the agent's
            # account of its calls goes to the log.
            log.info("acp agent tool %s: %s %s", update.tool_call_id,
                     getattr(update, "title", None) or "", update.status or "")

    async def request_permission(self, session_id: str, tool_call: Any,
                                 options: list[PermissionOption], **kwargs: Any
                                 ) -> RequestPermissionResponse:
        sink = self.sinks.get(session_id)
        mode = sink.mode if sink is not None else "ask"
        title = getattr(tool_call, "title", None) or getattr(tool_call, "tool_call_id", "")
        if mode == "ask":
            log.warning("acp: the agent asked to run %r; the approval mode is ask, which cannot "
                        "ask mid-reply: rejected (auto mode allows it)", title)
        for kind in MODE_ANSWERS.get(mode, MODE_ANSWERS["ask"]):
            chosen = next((o for o in options if o.kind == kind), None)
            if chosen is not None:
                return RequestPermissionResponse(
                    outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id))
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        target = self._inside(session_id, path)
        try:
            text = await asyncio.to_thread(target.read_text, encoding="utf-8", errors="replace")
        except OSError as exc:
            raise RequestError.resource_not_found(str(target)) if isinstance(
                exc, FileNotFoundError) else RequestError.internal_error(
                {"message": f"cannot read {target}: {exc.strerror or exc}"}) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            text = "".join(lines[start:start + limit] if limit is not None else lines[start:])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any
                              ) -> WriteTextFileResponse:
        sink = self.sinks.get(session_id)
        if sink is None or sink.mode == "read-only":
            raise RequestError.invalid_request({"message": "writes are off: read-only mode"})
        target = self._inside(session_id, path)
        try:
            await asyncio.to_thread(target.write_text, content, encoding="utf-8")
        except OSError as exc:
            raise RequestError.internal_error(
                {"message": f"cannot write {target}: {exc.strerror or exc}"}) from None
        return WriteTextFileResponse()

    def _inside(self, session_id: str, path: str) -> Path:
        """`path` if it lies inside the call's working folder, else the protocol's error."""
        sink = self.sinks.get(session_id)
        if sink is None:
            raise RequestError.invalid_params({"message": "no model call runs in this session"})
        target = Path(path)
        target = (target if target.is_absolute() else sink.cwd / target).resolve()
        if not target.is_relative_to(sink.cwd.resolve()):
            raise RequestError.invalid_params(
                {"message": f"{path} is outside the working directory {sink.cwd}"})
        return target

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


__all__ = ["AgentClient", "CallSink"]
