"""One user turn of the engine (a mixin of `Engine`): the turn lock, the graph's stream
turned into events, stops for approval (asked with the lock released), the accounting of
what the turn spent, and the repair of a turn that did not finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

from birdie_tui.agent.accounting import usage_after
from birdie_tui.agent.approval_ops import interrupts_in, resume_value
from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.events import (
    ApprovalDecided,
    TurnDone,
    TurnError,
    TurnEvent,
    UsageReported,
)
from birdie_tui.agent.builder import agent_context
from birdie_tui.agent.graph import AgentContext, Approver
from birdie_tui.agent.stream import agent_reply, translate
from birdie_tui.store import SessionMeta
from birdie_tui.text import content_text, one_line, scrub_surrogates


class TurnOps:
    """Needs from the engine: the graph, the session (ops, guard, approvals), the model,
    toolbox, memory, token account, options and settings."""

    async def run_turn(self, text: str, *, approver: Approver | None = None,
                       resume: dict[str, ApprovalAnswer] | None = None
                       ) -> AsyncIterator[TurnEvent]:
        """Run one user turn, yielding events. Never raises for engine/provider failures: they
        become a `TurnError` event. Cancellation leaves a valid history. An unsaved session is
        saved first (`persist_session`; its id may change). The tokens of every completed model
        call are counted, however the turn ends. The history is read back only to repair it
        (`needs_repair`): the final reply comes from the stream itself. Turns of one session
        take turns across processes: a turn waits (saying so) while another process runs one.

        A step with calls that need approval stops at an interrupt: `approver` answers each
        request (None: it stays pending, the turn ends with `approval … pending` events and
        the session resumable). `resume` answers a session's pending step instead of sending
        `text` (`--approve`, or a dialog asked again after a restart)."""
        text = scrub_surrogates(text)  # an argv byte that is not UTF-8 arrives as one
        meta = self.require_session()
        # Checked before anything is saved: a message the model cannot take leaves no trace.
        too_big = self.message_problem(text) if resume is None and text else None
        if too_big is not None:
            yield TurnError(message=too_big[0].upper() + too_big[1:])
            return
        if not meta.saved:
            try:
                self.persist_session()
            except OSError as exc:
                yield TurnError(message=f"could not create the session file: {exc}")
                return
        while True:
            self._stopped_for = []
            # One turn at a time per session, across processes (see SessionGuard.session_turn).
            async with self.session_turn() as busy:
                if busy is not None:
                    yield TurnError(message=busy)
                    return
                async with contextlib.aclosing(
                        self._locked_turn(meta, text, resume, ask=approver is not None)) as turn:
                    async for event in turn:
                        yield event
            if not self._stopped_for or approver is None:
                return
            # Asked with the lock released: a dialog may stay open for hours, and meanwhile
            # another process may run `--approve` (then the step is found answered).
            answers, waiting = await self.approvals.ask(self._stopped_for, approver)
            if waiting:
                for request in waiting:
                    yield ApprovalDecided(id=request.id, name=request.name,
                                          decision="pending", args=request.args)
                return
            text, resume = "", {**(resume or {}), **{
                k: ApprovalAnswer.from_value(v) for k, v in answers.items()}}

    _stopped_for: list[Any] = []  # the approvals the last locked part stopped for

    async def _locked_turn(self, meta: SessionMeta, text: str,
                           resume: dict[str, ApprovalAnswer] | None, *, ask: bool
                           ) -> AsyncIterator[TurnEvent]:
        """`run_turn` once the session's turn lock is held, the session caught up. A step that
        stops for approval ends it: with `ask`, its requests are left in `_stopped_for` for
        `run_turn` to ask; without, they are reported pending."""
        pending, problem = await self._before_step(resume, ask=ask)
        if problem:
            yield TurnError(message=problem)
        if problem is not None:
            return
        context = self._turn_context()
        tally = _Tally()
        self.tokens.begin_turn()
        asked = HumanMessage(content=text, id=str(uuid.uuid4()))  # found again for accounting
        self.needs_repair = True  # until the turn ends cleanly
        inputs: Any = {"messages": [asked]}
        stopped_for: list[Any] = []  # the approvals the step just streamed stopped for
        if resume is not None:
            inputs = Command(resume=resume_value(resume, pending))
        try:
            while True:
                async for mode, data in self._graph.astream(
                    inputs,
                    self._config(),
                    context=context,
                    stream_mode=["messages", "updates", "custom"],
                    durability="sync",  # a finished step is on disk before the next starts
                ):
                    tally.reply = agent_reply(mode, data) or tally.reply
                    stopped_for += interrupts_in(mode, data)
                    for event in translate(mode, data):
                        self._tally(event, tally)
                        yield event
                pending, stopped_for = stopped_for, []
                if not pending:
                    break
                # Rules saved meanwhile (an "always" for an earlier call) answer at once.
                answers, waiting = await self.approvals.ask(pending, None)
                if waiting:  # the step stays in the checkpoint
                    self.needs_repair = False
                    if ask:
                        self._stopped_for = pending
                        return
                    for request in waiting:
                        yield ApprovalDecided(id=request.id, name=request.name,
                                              decision="pending", args=request.args)
                    return
                inputs = Command(resume=answers)
            self.needs_repair = False
            yield TurnDone(text=tally.final_text())
        except (asyncio.CancelledError, GeneratorExit):
            await self._close_interrupted(tally, asked.id)
            raise
        except Exception as exc:  # provider, tool plumbing, anything: the app goes on
            await self._close_interrupted(tally, asked.id)
            yield TurnError(message=one_line(exc))
        finally:
            self.tokens.finish_turn(meta, tally.used_in, tally.used_out)

    async def _before_step(self, resume: dict[str, ApprovalAnswer] | None, *, ask: bool
                           ) -> tuple[list[Any], str | None]:
        """The session's pending step, and None to go on, "" to stop quietly (calls left for
        `run_turn` to ask), or a problem to report. A new message closes a pending step; a
        history left invalid is repaired."""
        pending = await self.pending_approvals()
        if resume is None:
            if pending:  # a new message instead of an answer
                await self.approvals.close_pending(pending)
            elif self.needs_repair:
                await self.repair_session()
            return pending, None
        if not pending:
            return pending, "nothing waits for approval any more (answered elsewhere?)"
        unanswered = [request for request in pending if request.id not in resume]
        if unanswered and ask:  # asked by `run_turn`, the lock released meanwhile
            self._stopped_for = unanswered
            return pending, ""
        for request in pending:  # an "always" given with the answer is saved
            if request.id in resume:
                self.approvals.remember(request, resume[request.id])
        return pending, None

    def _turn_context(self) -> AgentContext:
        """What the graph's nodes get for this turn (runtime context, never checkpointed)."""
        return agent_context(
            self,
            toolbox=self.toolbox,
            memory=[entry.content for entry in self.memory.entries()],
            approvals=self.approvals.policy(),
            max_tool_calls=self.options.max_tool_calls,
            loading=self.prompt_setting("skill_loading"),
            decay_turns=self.prompt_setting("skill_decay_turns"),
            max_loaded=self.prompt_setting("skill_max_loaded"),
        )

    def _tally(self, event: TurnEvent, tally: _Tally) -> None:
        if event.type == "token":
            tally.streamed.append(event.text)  # type: ignore[attr-defined]
        elif event.type == "injected":
            self.last_call = event.context  # type: ignore[attr-defined]
        elif isinstance(event, UsageReported):
            tally.streamed.clear()
            tally.used_in += event.input_tokens
            tally.used_out += event.output_tokens
            self.tokens.add_call(event.input_tokens, event.output_tokens,
                                 event.cached_input_tokens)

    async def _close_interrupted(self, tally: _Tally, asked_id: str | None) -> None:
        """Repair the history of a turn that did not finish and settle its spent tokens,
        counting a call that completed (and was checkpointed) just before its usage event got
        out. One read of the history serves both."""
        try:
            history, _ = await self.repaired_history(partial_reply="".join(tally.streamed))
            seen = usage_after(history, asked_id or "")
        except Exception:  # noqa: BLE001 - needs_repair stays set: repair runs before next turn
            return
        finally:
            # The graph's stream may still be winding down: check again before the next turn.
            self.needs_repair = True
        if seen is not None:
            tally.used_in = max(tally.used_in, seen[0])
            tally.used_out = max(tally.used_out, seen[1])


@dataclass
class _Tally:
    """What a turn has seen so far: the text of the model call in progress, the tokens of its
    completed calls, and the last AI message the agent node produced."""

    streamed: list[str] = field(default_factory=list)
    used_in: int = 0
    used_out: int = 0
    reply: AIMessage | None = None

    def final_text(self) -> str:
        """The answer: the last AI message, unless it still calls tools (as `final_reply`)."""
        if self.reply is None or self.reply.tool_calls:
            return ""
        return content_text(self.reply.content)
