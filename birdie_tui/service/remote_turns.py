"""A turn of `RemoteBirdie`: a streamed run of the server's `birdie` graph, its SSE parts
turned into the SAME turn events the local engine yields (`agent.stream.translate` on the
parts, made LangChain messages again), approvals as interrupts resumed with
`{"resume": {call_id: answer}}`, and a cancelled turn cancelling its run on the server.

A mixin of `RemoteBirdie`: it uses the wire, the open thread and its metadata, `_emit`.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from birdie_tui.agent.approvals import ApprovalAnswer, ApprovalRequest
from birdie_tui.events import (
    ApprovalDecided,
    ChangeEvent,
    TotalsChanged,
    TurnDone,
    TurnError,
    TurnEvent,
    UsageReported,
)
from birdie_tui.agent.ledger import CallUsage, call_cost
from birdie_tui.service.protocol import Approver, BirdieError
from birdie_tui.service.remote_client import GRAPH, Wire, to_messages
from birdie_tui.store.session_meta import str_list

if TYPE_CHECKING:
    from langgraph_sdk.schema import StreamMode

STREAM_MODES: list[StreamMode] = ["messages-tuple", "updates", "custom"]
CANCEL_WAIT = 15.0  # seconds a cancelled run gets to stop on the server


def translate_part(event: str, data: Any) -> Iterator[TurnEvent]:
    """One SSE part of a run as the local stream's events (same types, same order)."""
    from birdie_tui.agent.stream import translate

    if event == "messages" and isinstance(data, (list, tuple)) and len(data) == 2:
        chunk = to_messages([data[0]])
        if chunk:
            yield from translate("messages", (chunk[0], data[1] or {}))
    elif event == "updates" and isinstance(data, dict):
        updates = {node: {**update, "messages": to_messages(update.get("messages"))}
                   for node, update in data.items()
                   if node != "__interrupt__" and isinstance(update, dict)}
        yield from translate("updates", updates)
    elif event == "custom" and isinstance(data, dict):
        custom = dict(data)
        if isinstance(custom.get("injected"), dict):
            from birdie_tui.agent.wire import injected_from_wire

            custom["injected"] = injected_from_wire(custom["injected"])
        yield from translate("custom", custom)


def final_text(update: Any) -> str | None:
    """The text of the agent's reply in an `updates` part (None: no agent reply in it;
    "" while it still calls tools)."""
    agent = update.get("agent") if isinstance(update, dict) else None
    messages = to_messages(agent.get("messages")) if isinstance(agent, dict) else []
    reply = next((m for m in reversed(messages) if m.type == "ai"), None)
    if reply is None:
        return None
    from birdie_tui.text import content_text

    return "" if reply.tool_calls else content_text(reply.content)


class RemoteTurns:
    wire: Wire
    _emit: Callable[[ChangeEvent], None]
    _thread: str
    _meta: dict[str, Any]
    _live: list[CallUsage]
    _last_injected: Any
    _run_id: str | None

    _ensure_thread: Callable[[], Awaitable[str]]  # the rest is RemoteBirdie's
    _after_turn: Callable[[], Awaitable[None]]
    _write_meta: Callable[..., Awaitable[None]]
    _price: Callable[[], Any]
    decided_answer: Callable[[ApprovalRequest], ApprovalAnswer | None]

    # ------------------------------------------------------------------ the door's methods
    def send(self, text: str, *, approver: Approver | None = None) -> AsyncIterator[TurnEvent]:
        return self._remote_turn(text, approver, None)

    def resume(self, answers: dict[str, ApprovalAnswer] | None = None, *,
               approver: Approver | None = None) -> AsyncIterator[TurnEvent]:
        return self._remote_turn("", approver, dict(answers or {}))

    async def pending_approvals(self) -> list[ApprovalRequest]:
        if not getattr(self, "_saved", False):
            return []
        state = await self.wire.call(lambda: self.wire.aio.threads.get_state(self._thread),
                                     thread=self._thread)
        return pending_in(state)

    # ------------------------------------------------------------------ one turn
    async def _remote_turn(self, text: str, approver: Approver | None,
                           resume: dict[str, ApprovalAnswer] | None) -> AsyncIterator[TurnEvent]:
        from birdie_tui.agent.approval_ops import resume_value
        from birdie_tui.text import scrub_surrogates

        self._live, self._run_id = [], None
        thread = self._thread
        try:
            thread = await self._ensure_thread()
            pending = await self.pending_approvals()
            if resume is None:
                if pending:  # a new message instead of an answer
                    await self._close_pending(pending)
                message = {"type": "human", "content": scrub_surrogates(text),
                           "id": str(uuid.uuid4())}
                payload: dict[str, Any] = {"input": {"messages": [message]}}
            else:
                if not pending:
                    yield TurnError(message="nothing waits for approval any more "
                                            "(answered elsewhere?)")
                    return
                asked, waiting = await self._answer(
                    [r for r in pending if r.id not in resume], approver)
                if waiting and approver is not None:
                    for request in waiting:
                        yield _pending_event(request)
                    return
                resume = {**resume, **{k: ApprovalAnswer.from_value(v) for k, v in asked.items()}}
                for request in pending:
                    if request.id in resume:
                        await self._remember(request, resume[request.id])
                payload = {"command": {"resume": resume_value(resume, pending)}}
            async with contextlib.aclosing(self._runs(thread, payload, approver)) as events:
                async for event in events:
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            await self._cancel_run(thread)
            raise
        except BirdieError as exc:
            yield TurnError(message=str(exc))
        except Exception as exc:  # noqa: BLE001 - the server's failure is a line, not a crash
            yield TurnError(message=str(self.wire.error(exc, thread)))
        finally:
            with contextlib.suppress(Exception):
                await self._after_turn()

    async def _runs(self, thread: str, payload: dict[str, Any], approver: Approver | None
                    ) -> AsyncGenerator[TurnEvent, None]:
        """Run, and run again after each stop for approval the approver answers."""
        from birdie_tui.agent.approval_ops import interrupts_in

        reply = ""
        while True:
            stopped: list[ApprovalRequest] = []
            async for part in self.wire.aio.runs.stream(
                    thread, GRAPH, stream_mode=STREAM_MODES, multitask_strategy="reject",
                    **payload):
                if part.event == "metadata" and isinstance(part.data, dict):
                    self._run_id = part.data.get("run_id")
                elif part.event == "error":
                    yield TurnError(message=_run_error(part.data))
                    return
                stopped += interrupts_in(part.event, part.data)  # SSE events are the modes
                if part.event == "updates":
                    found = final_text(part.data)
                    reply = reply if found is None else found
                for event in translate_part(part.event, part.data):
                    self._count(event)
                    yield event
            self._run_id = None
            if not stopped:
                break
            answers, waiting = await self._answer(stopped, approver)
            if waiting:  # the step stays in the thread, resumable (`--approve`, a dialog)
                for request in waiting:
                    yield _pending_event(request)
                return
            payload = {"command": {"resume": answers}}
        yield TurnDone(text=reply)

    def _count(self, event: TurnEvent) -> None:
        if isinstance(event, UsageReported):
            self._live.append(CallUsage(
                event.input_tokens, event.output_tokens, event.cached_input_tokens,
                call_cost(self._price(), event.input_tokens, event.output_tokens,
                          event.cached_input_tokens)))
            ledger = self.ledger()  # type: ignore[attr-defined]
            self._emit(TotalsChanged(session_in=ledger.session_in,
                                     session_out=ledger.session_out))
        elif event.type == "injected":
            self._last_injected = event

    # ------------------------------------------------------------------ approvals
    async def _answer(self, pending: list[ApprovalRequest], approver: Approver | None
                      ) -> tuple[dict[str, dict[str, Any]], list[ApprovalRequest]]:
        """(resume value, requests left pending): an "always" given for an earlier call of the
        step answers the later ones; the approver the rest (None: they wait)."""
        answers: dict[str, dict[str, Any]] = {}
        waiting: list[ApprovalRequest] = []
        for request in pending:
            answer = self.decided_answer(request)  # the one policy, as the local desk asks it
            if answer is not None:
                answers[request.id] = answer.to_dict()
                continue
            answer = await approver(request) if approver is not None else None
            if answer is None:
                waiting.append(request)
                continue
            await self._remember(request, answer)
            answers[request.id] = answer.to_dict()
        return answers, waiting

    async def _remember(self, request: ApprovalRequest, answer: ApprovalAnswer) -> None:
        """An "always" answer saved in the thread's metadata (the graph reads it each run)."""
        saved = request.saved_as(answer)
        if saved is None:
            return
        key, item = saved
        items = str_list(self._meta.get(key))
        if item not in items:
            await self._write_meta(**{key: [*items, item]})

    async def _close_pending(self, pending: list[ApprovalRequest]) -> None:
        """A new message instead of an answer: the waiting calls are answered "not run" (as
        the local engine does), so the thread's history stays valid."""
        from birdie_tui.agent.approval_ops import closing_results
        from birdie_tui.service.remote_client import message_dict

        state = await self.wire.call(lambda: self.wire.aio.threads.get_state(self._thread),
                                     thread=self._thread)
        values: Any = state.get("values") or {}  # the graph's state: a dict of channels
        closed = [message_dict(result) for result in closing_results(
            to_messages(values.get("messages")), pending)]
        if not closed:
            return
        await self.wire.call(lambda: self.wire.aio.threads.update_state(
            self._thread, {"messages": closed}, as_node="tools"), thread=self._thread)

    async def _cancel_run(self, thread: str) -> None:
        """Esc: the run is cancelled on the server too (and given a moment to stop, so the
        next turn does not find the thread busy)."""
        run_id, self._run_id = self._run_id, None
        if run_id is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.shield(asyncio.wait_for(
                self.wire.aio.runs.cancel(thread, run_id, wait=True), CANCEL_WAIT))


def pending_in(state: Any) -> list[ApprovalRequest]:
    """The approval requests a thread state waits on."""
    if not isinstance(state, dict):
        return []
    from birdie_tui.agent.approval_ops import requests_of

    found = requests_of(state.get("interrupts"))
    if not found:
        for task in state.get("tasks") or ():
            found += requests_of(task.get("interrupts") if isinstance(task, dict) else None)
    unique = {request.id: request for request in found}
    return list(unique.values())


def _pending_event(request: ApprovalRequest) -> ApprovalDecided:
    return ApprovalDecided(id=request.id, name=request.name, decision="pending",
                           args=request.args)


def _run_error(data: Any) -> str:
    from birdie_tui.text import one_line

    if isinstance(data, dict):
        message = data.get("message") or data.get("error") or "the run failed on the server"
        return one_line(str(message))
    return one_line(str(data or "the run failed on the server"))

