"""One prompt's turn, relayed from the door to the client: the turn starts on its session
(shown under the agent's lock, in its working directory), and each of its events becomes the
session updates a client shows; the prompt's answer is its stop reason and tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from acp import RequestError
from acp.schema import PromptResponse, Usage

from birdie_tui.acp.children import ChildCalls
from birdie_tui.acp.updates import ToolCalls, Update, message_chunk, plan_of
from birdie_tui.events import (
    TOOL_LIMIT_NOTE,
    AgentFinished,
    AgentStarted,
    ApprovalDecided,
    ChildEvent,
    TokenStreamed,
    ToolCallStarted,
    ToolFinished,
    TurnError,
    TurnEvent,
    UsageReported,
)
from birdie_tui.service import Approver, Birdie, BirdieError, Workspace

Send = Callable[[str, Any], Awaitable[None]]


@dataclass
class _Tally:
    input_tokens: int = 0
    output_tokens: int = 0
    limited: bool = False
    error: str = ""
    cancelled: bool = False


class FolderGate:
    """Tools run in the process's working directory: turns of one directory run side by
    side, a turn of another waits until they are done."""

    def __init__(self) -> None:
        self._turns: Counter[str] = Counter()
        self._changed = asyncio.Condition()

    @contextlib.asynccontextmanager
    async def hold(self, cwd: str) -> AsyncIterator[None]:
        """Run with `cwd` as the process's working directory, once no turn of another folder
        runs (tools run where the process is)."""
        async with self._changed:
            await self._changed.wait_for(
                lambda: not (+self._turns) or set(+self._turns) == {cwd})
            try:
                os.chdir(cwd)
            except OSError as exc:
                raise BirdieError(f"the session's folder cannot be used: {cwd}: "
                                  f"{exc.strerror}") from None
            self._turns[cwd] += 1
        try:
            yield
        finally:
            async with self._changed:
                self._turns[cwd] -= 1
                self._changed.notify_all()


class TurnRelay:
    def __init__(self, door: Birdie, desk: asyncio.Lock, gate: FolderGate, send: Send) -> None:
        self._door = door
        self._desk = desk  # held while a turn's session is shown and its turn starts
        self._gate = gate
        self._send = send

    async def run(self, session_id: str, cwd: str, approver: Approver, text: str,
                  workspace: Workspace | None = None) -> PromptResponse:
        tally = _Tally()
        calls = ToolCalls(cwd)
        children = ChildCalls(calls)
        try:
            async with self._gate.hold(cwd):
                async with self._desk:
                    await self._door.open_session(session_id)
                    stream = self._door.send(text, approver=approver, workspace=workspace)
                    first = await anext(stream, None)  # the turn now holds its session
                try:
                    await self._follow(session_id, first, stream, calls, children, tally)
                finally:
                    close = getattr(stream, "aclose", None)
                    if close is not None:
                        await close()
        except asyncio.CancelledError:
            tally.cancelled = True
        except BirdieError as exc:
            tally.error = str(exc)
        usage = Usage(input_tokens=tally.input_tokens, output_tokens=tally.output_tokens,
                      total_tokens=tally.input_tokens + tally.output_tokens)
        if tally.cancelled:
            return PromptResponse(stop_reason="cancelled", usage=usage)
        if tally.error:
            raise RequestError.internal_error({"message": tally.error})
        return PromptResponse(stop_reason="max_turn_requests" if tally.limited else "end_turn",
                              usage=usage)

    async def _follow(self, session_id: str, event: TurnEvent | None,
                      stream: AsyncIterator[TurnEvent], calls: ToolCalls, children: ChildCalls,
                      tally: _Tally) -> None:
        while event is not None:
            if isinstance(event, ChildEvent) and isinstance(event.event, UsageReported):
                tally.input_tokens += event.event.input_tokens  # the prompt's tokens too
                tally.output_tokens += event.event.output_tokens
            updates = children.updates(event) if isinstance(
                event, (AgentStarted, AgentFinished, ChildEvent)) else \
                self._updates_for(event, calls, tally)
            for update in updates:
                await self._send(session_id, update)
            event = await anext(stream, None)

    def _updates_for(self, event: TurnEvent, calls: ToolCalls, tally: _Tally) -> list[Update]:
        if isinstance(event, TokenStreamed):
            return [message_chunk(event.text)] if event.text else []
        if isinstance(event, ToolCallStarted):
            calls.names[event.id] = event.name
            return [calls.started(event.id, event.name, event.args)]
        if isinstance(event, ApprovalDecided):
            return [calls.running(event.id)] if event.decision == "approved" else []
        if isinstance(event, ToolFinished):
            tally.limited = tally.limited or event.content.startswith(TOOL_LIMIT_NOTE)
            plan = None if event.error else plan_of(calls.names.get(event.id, event.name),
                                                    event.content)
            return [calls.finished(event.id, event.content, event.error),
                    *([plan] if plan is not None else [])]
        if isinstance(event, UsageReported):
            tally.input_tokens += event.input_tokens
            tally.output_tokens += event.output_tokens
        elif isinstance(event, TurnError):
            tally.error = event.message
        return []
