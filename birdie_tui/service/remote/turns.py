"""A turn of `RemoteBirdie`: a streamed run of the server's `birdie` graph, its SSE parts
turned into the SAME turn events the local engine yields (`agent.stream.translate` on the
parts, made LangChain messages again), approvals as interrupts resumed with
`{"resume": {call_id: answer}}`, and a cancelled turn cancelling its run on the server.

A turn runs on the `RemoteThread` it started on (`thread.py`), whatever is shown later:
its calls are counted in that thread's ledger, its "always" answers saved in that thread's
metadata, its approvals decided by that thread's rules. A mixin of `RemoteBirdie`: it uses the
wire, the door's threads (`shown`, `_running`) and `_emit`.
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
    ChildEvent,
    SkillsInjected,
    TurnDone,
    TurnError,
    TurnEvent,
    UsageReported,
)
from birdie_tui.service.protocol import Approver, BirdieError
from birdie_tui.service.remote.client import GRAPH, Wire, to_messages
from birdie_tui.service.remote.thread import RemoteThread
from birdie_tui.store.session_meta import str_list
from birdie_tui.workspace import Workspace

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
        if isinstance(custom.get("child"), dict):  # a sub-agent's start, event or end
            from birdie_tui.agent.wire import child_from_wire

            custom["child"] = child_from_wire(custom["child"])
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
    shown: RemoteThread
    _running: dict[str, RemoteThread]
    _emit: Callable[[ChangeEvent], None]

    _ensure_thread: Callable[[RemoteThread], Awaitable[str]]  # the rest is RemoteBirdie's
    _after_turn: Callable[[RemoteThread], Awaitable[None]]
    _write_meta: Callable[..., Awaitable[None]]
    _price: Callable[[], Any]
    _emit_totals: Callable[[], None]
    thread_answer: Callable[[RemoteThread, ApprovalRequest], ApprovalAnswer | None]

    # ------------------------------------------------------------------ the door's methods
    # A `workspace` is accepted and not used: the tools run on the server, in its process, so a
    # client's files and terminals cannot be lent to them.
    def send(self, text: str, *, approver: Approver | None = None,
             workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]:
        return self._remote_turn(text, approver, None)

    def resume(self, answers: dict[str, ApprovalAnswer] | None = None, *,
               approver: Approver | None = None,
               workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]:
        return self._remote_turn("", approver, dict(answers or {}))

    async def pending_approvals(self) -> list[ApprovalRequest]:
        return await self._pending(self.shown)

    async def _pending(self, view: RemoteThread) -> list[ApprovalRequest]:
        if not view.saved:
            return []
        state = await self.wire.call(lambda: self.wire.aio.threads.get_state(view.id),
                                     thread=view.id)
        return pending_in(state)

    # ------------------------------------------------------------------ one turn
    async def _remote_turn(self, text: str, approver: Approver | None,
                           resume: dict[str, ApprovalAnswer] | None) -> AsyncIterator[TurnEvent]:
        view = self.shown  # the turn's thread, whatever is shown later
        view.turning, view.run_id = True, None
        view.ledger.begin_turn()
        self._running[view.id] = view
        try:
            await self._ensure_thread(view)
            payload = await self._payload(view, text, approver, resume)
            if isinstance(payload, list):  # nothing to run: why, or the calls left pending
                for event in payload:
                    yield event
                return
            async with contextlib.aclosing(self._runs(view, payload, approver)) as events:
                async for event in events:
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            await self._cancel_run(view)
            raise
        except BirdieError as exc:
            yield TurnError(message=str(exc))
        except Exception as exc:  # noqa: BLE001 - the server's failure is a line, not a crash
            yield TurnError(message=str(self.wire.error(exc, view.id)))
        finally:
            with contextlib.suppress(Exception):
                await self._after_turn(view)
            view.turning = False
            if self._running.get(view.id) is view:
                del self._running[view.id]

    async def _payload(self, view: RemoteThread, text: str, approver: Approver | None,
                       resume: dict[str, ApprovalAnswer] | None
                       ) -> dict[str, Any] | list[TurnEvent]:
        """The run's input: the message (a step left pending is closed first), or the answers
        to the pending step; else the events that say why nothing runs."""
        from birdie_tui.agent.approval_ops import resume_value
        from birdie_tui.text import scrub_surrogates

        pending = await self._pending(view)
        if resume is None:
            if pending:  # a new message instead of an answer
                await self._close_pending(view, pending)
            message = {"type": "human", "content": scrub_surrogates(text),
                       "id": str(uuid.uuid4())}
            return {"input": {"messages": [message]}}
        if not pending:
            return [TurnError(message="nothing waits for approval any more "
                                      "(answered elsewhere?)")]
        asked, waiting = await self._answer(
            view, [r for r in pending if r.id not in resume], approver)
        if waiting and approver is not None:
            return [_pending_event(request) for request in waiting]
        resume = {**resume, **{k: ApprovalAnswer.from_value(v) for k, v in asked.items()}}
        for request in pending:
            if request.id in resume:
                await self._remember(view, request, resume[request.id])
        return {"command": {"resume": resume_value(resume, pending)}}

    async def _runs(self, view: RemoteThread, payload: dict[str, Any],
                    approver: Approver | None) -> AsyncGenerator[TurnEvent, None]:
        """Run, and run again after each stop for approval the approver answers."""
        from birdie_tui.agent.approval_ops import interrupts_in

        reply = ""
        while True:
            stopped: list[ApprovalRequest] = []
            async for part in self.wire.aio.runs.stream(
                    view.id, GRAPH, stream_mode=STREAM_MODES, multitask_strategy="reject",
                    **payload):
                if part.event == "metadata" and isinstance(part.data, dict):
                    view.run_id = part.data.get("run_id")
                elif part.event == "error":
                    yield TurnError(message=_run_error(part.data))
                    return
                stopped += interrupts_in(part.event, part.data)  # SSE events are the modes
                if part.event == "updates":
                    found = final_text(part.data)
                    reply = reply if found is None else found
                for event in translate_part(part.event, part.data):
                    self._count(view, event)
                    yield event
            view.run_id = None
            if not stopped:
                break
            answers, waiting = await self._answer(view, stopped, approver)
            if waiting:  # the step stays in the thread, resumable (`--approve`, a dialog)
                for request in waiting:
                    yield _pending_event(request)
                return
            payload = {"command": {"resume": answers}}
        yield TurnDone(text=reply)

    def _count(self, view: RemoteThread, event: TurnEvent) -> None:
        if isinstance(event, ChildEvent) and isinstance(event.event, UsageReported):
            used = event.event  # a sub-agent's model call: the turn's tokens too, per agent
            view.ledger.add_call(used.input_tokens, used.output_tokens,
                                 used.cached_input_tokens, self._price(), agent=event.agent)
            self._emit_totals()
        elif isinstance(event, UsageReported):
            view.ledger.add_call(event.input_tokens, event.output_tokens,
                                 event.cached_input_tokens, self._price())
            self._emit_totals()  # the shown thread's (another's calls change nothing shown)
        elif isinstance(event, SkillsInjected):
            view.last_injected = event

    # ------------------------------------------------------------------ approvals
    async def _answer(self, view: RemoteThread, pending: list[ApprovalRequest],
                      approver: Approver | None
                      ) -> tuple[dict[str, dict[str, Any]], list[ApprovalRequest]]:
        """(resume value, requests left pending): the thread's mode and rules answer what
        they can (an "always" given for an earlier call of the step answers the later ones);
        the approver the rest (None: they wait)."""
        answers: dict[str, dict[str, Any]] = {}
        waiting: list[ApprovalRequest] = []
        for request in pending:
            answer = self.thread_answer(view, request)  # the one policy, as the local desk's
            if answer is None and approver is not None:
                answer = await approver(request)
                if answer is not None:
                    await self._remember(view, request, answer)
            if answer is None:
                waiting.append(request)
                continue
            answers[request.id] = answer.to_dict()
        return answers, waiting

    async def _remember(self, view: RemoteThread, request: ApprovalRequest,
                        answer: ApprovalAnswer) -> None:
        """An "always" answer saved in the thread's metadata (the graph reads it each run)."""
        saved = request.saved_as(answer)
        if saved is None:
            return
        key, item = saved
        items = str_list(view.meta.get(key))
        if item not in items:
            await self._write_meta(view, **{key: [*items, item]})

    async def _close_pending(self, view: RemoteThread, pending: list[ApprovalRequest]) -> None:
        """A new message instead of an answer: the waiting calls are answered "not run" (as
        the local engine does), so the thread's history stays valid."""
        from birdie_tui.agent.approval_ops import closing_results
        from birdie_tui.service.remote.client import message_dict

        state = await self.wire.call(lambda: self.wire.aio.threads.get_state(view.id),
                                     thread=view.id)
        values: Any = state.get("values") or {}  # the graph's state: a dict of channels
        closed = [message_dict(result) for result in closing_results(
            to_messages(values.get("messages")), pending)]
        if not closed:
            return
        await self.wire.call(lambda: self.wire.aio.threads.update_state(
            view.id, {"messages": closed}, as_node="tools"), thread=view.id)

    async def _cancel_run(self, view: RemoteThread) -> None:
        """Esc: the run is cancelled on the server too (and given a moment to stop, so the
        next turn does not find the thread busy)."""
        run_id, view.run_id = view.run_id, None
        if run_id is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.shield(asyncio.wait_for(
                self.wire.aio.runs.cancel(view.id, run_id, wait=True), CANCEL_WAIT))


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

