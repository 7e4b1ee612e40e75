"""The provider's end of the MCP bridge (`acp_bridge.py`): one model call's tools, served over
a Unix socket in a private folder, each call run through the LangChain tool the call was bound
with (tools/adapter.py: argument checks, timeouts, bounded output, the reaper) after the
turn's approval verdict (`acp_turn.py`).

A call the verdict would ask about is refused, not asked: the question would have to stop the
graph in the middle of the model call, and resuming reruns the whole agent prompt. Its result
says so, and how to let it run (auto mode, or an always-allow rule). Without a turn (a model
used outside the graph) the caller owns the policy, and bound tools run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import shutil
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from birdie_tui.providers.acp_bridge import LINE_LIMIT, RELAY_VARIABLE, SERVER_NAME, TOKEN_VARIABLE
from birdie_tui.providers.acp_turn import TurnSeam
from birdie_tui.secrets import scrub
from birdie_tui.text import content_text

log = logging.getLogger(__name__)

NEEDS_APPROVAL = (
    "Not run: this tool needs approval, and a call an ACP agent makes mid-reply cannot stop to "
    "ask. Switch the approval mode to auto, or save an always-allow rule for it, to let it run."
)


def _error_text(exc: BaseException) -> str:
    """What the agent (and the chat) sees when a tool fails, scrubbed (as graph.tool_error_text)."""
    from langchain_core.tools import ToolException

    if isinstance(exc, ToolException):
        return scrub(str(exc))
    return scrub(f"{type(exc).__name__}: {exc}")


class ToolRelay:
    """Serves `tools` to one model call's bridge; `entry()` is its `mcpServers` row."""

    def __init__(self, tools: Sequence[Any], schemas: Sequence[dict[str, Any]],
                 seam: TurnSeam | None) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._schemas = [s.get("function", s) for s in schemas]
        self._seam = seam
        self._token = secrets.token_hex(16)
        self._folder: Path | None = None
        self._server: asyncio.AbstractServer | None = None
        self._running: set[asyncio.Task[Any]] = set()
        self.busy = 0  # calls running now (an agent waiting on a tool is not idle)
        self.calls = 0

    async def start(self) -> ToolRelay:
        # A folder only this user can enter: the socket inherits its protection.
        self._folder = Path(tempfile.mkdtemp(prefix="birdie-acp-"))
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self._folder / "relay.sock"), limit=LINE_LIMIT)
        return self

    def entry(self) -> dict[str, Any]:
        """The stdio MCP server row for `session/new` (0.15.1's name, "birdie")."""
        assert self._folder is not None, "start() first"
        return {"name": SERVER_NAME, "command": sys.executable,
                "args": ["-m", "birdie_tui.providers.acp_bridge"],
                "env": [{"name": RELAY_VARIABLE, "value": str(self._folder / "relay.sock")},
                        {"name": TOKEN_VARIABLE, "value": self._token},
                        {"name": "PYTHONPATH", "value": _package_root()}]}

    async def aclose(self) -> None:
        """Stop serving; a tool still running is cancelled (its process group killed)."""
        for task in list(self._running):
            task.cancel()
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            line = await reader.readline()
            request = json.loads(line) if line else {}
            if not isinstance(request, dict) or not secrets.compare_digest(
                    str(request.get("token", "")), self._token):
                return  # not our bridge: no answer
            if request.get("op") == "list":
                answer: dict[str, Any] = {"tools": self._schemas}
            else:
                arguments = request.get("arguments")
                text, error = await self.call(str(request.get("name", "")),
                                              arguments if isinstance(arguments, dict) else {})
                answer = {"text": text, "error": error}
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        except (OSError, ValueError) as exc:
            log.debug("acp relay: a bridge request failed: %s", exc)
        finally:
            if task is not None:
                self._running.discard(task)
            writer.close()

    async def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        """Run one call as the turn allows; (result text, failed?)."""
        self.calls += 1
        call_id = f"acp-{uuid.uuid4().hex[:12]}"
        tool = self._tools.get(name)
        if tool is None:
            return f"Tool {name!r} is not available (its skill is disabled or gone).", True
        refusal = self._refusal(call_id, name, args)
        self._report({"tool_call": {"id": call_id, "name": name, "args": dict(args)}})
        if refusal is not None:
            self._report({"tool_result": {"id": call_id, "name": name, "content": refusal,
                                          "error": True}})
            return refusal, True
        self.busy += 1
        try:
            message = await tool.ainvoke({"type": "tool_call", "id": call_id, "name": name,
                                          "args": args})
            text = scrub(content_text(getattr(message, "content", message)))
            error = getattr(message, "status", "success") == "error"
        except Exception as exc:  # noqa: BLE001 - a failed tool is a result, as in the graph
            text, error = _error_text(exc), True
        finally:
            self.busy -= 1
        self._report({"tool_result": {"id": call_id, "name": name, "content": text,
                                      "error": error}})
        return text, error

    def _refusal(self, call_id: str, name: str, args: dict[str, Any]) -> str | None:
        """None when the call may run, else the text that says why not."""
        if self._seam is None:
            return None
        action, why, gated = self._seam.verdict(call_id, name, args)
        if gated:
            decision = "approved" if action == "allow" else "denied"
            self._report({"approval": {"id": call_id, "name": name, "decision": decision}})
        if action == "allow":
            return None
        if action == "ask":
            log.info("acp: %s refused: it needs approval (%s)", name, why or "gated")
            return NEEDS_APPROVAL
        return f"Not run: {why}." if why else "Not run."

    def _report(self, event: dict[str, Any]) -> None:
        if self._seam is None:
            return
        try:
            self._seam.report(event)
        except Exception:  # noqa: BLE001 - showing a call must never fail it
            log.debug("acp relay: could not report %s", list(event), exc_info=True)


def _package_root() -> str:
    """The folder holding `birdie_tui`: the bridge imports this copy, whatever the agent's
    working folder and environment."""
    return str(Path(__file__).resolve().parents[2])


__all__ = ["NEEDS_APPROVAL", "ToolRelay"]
