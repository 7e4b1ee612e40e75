"""One user turn of one open session: the turn lock, the graph's stream turned into events,
stops for approval (asked with the lock released), the accounting of what the turn spent, and
the repair of a turn that did not finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

from birdie_tui.agent.accounting import TokenAccount, usage_after
from birdie_tui.agent.approval_ops import ApprovalDesk, interrupts_in, resume_value
from birdie_tui.agent.approvals import ApprovalAnswer, ApprovalRequest
from birdie_tui.agent.builder import ModelFacts, agent_context
from birdie_tui.agent.compactor import Compactor
from birdie_tui.agent.graph import AgentContext, Approver
from birdie_tui.agent.host import AgentHost
from birdie_tui.agent.run_profile import run_agent, run_context
from birdie_tui.agent.session_book import SessionBook
from birdie_tui.agent.session_history import SessionHistory
from birdie_tui.agent.session_state import SessionState
from birdie_tui.agent.stream import agent_reply, translate
from birdie_tui.agent.subagents import ChildSetup, SubAgents, denied_answers
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.events import (
    ApprovalDecided,
    ChildEvent,
    SkillsInjected,
    TokenStreamed,
    TurnDone,
    TurnError,
    TurnEvent,
    UsageReported,
)
from birdie_tui.store import SessionMeta
from birdie_tui.text import content_text, one_line, scrub_surrogates
from birdie_tui.workspace import Workspace


@dataclass(frozen=True)
class TurnParts:
    """What a turn works with: the session's state and collaborators, and the agent."""

    state: SessionState
    host: AgentHost
    book: SessionBook
    history: SessionHistory
    approvals: ApprovalDesk
    tokens: TokenAccount
    compactor: Compactor
    toolbox: Toolbox
    facts: ModelFacts  # the model, its window and the prompt file's home (the engine)


class TurnLoop:
    def __init__(self, parts: TurnParts):
        self._state, self._host, self._book = parts.state, parts.host, parts.book
        self._history, self._approvals, self._tokens = parts.history, parts.approvals, parts.tokens
        self._compactor, self._toolbox, self._facts = parts.compactor, parts.toolbox, parts.facts
        self._stopped_for: list[ApprovalRequest] = []  # what the last locked part stopped for

    async def run_turn(self, text: str, *, approver: Approver | None = None,
                       resume: dict[str, ApprovalAnswer] | None = None,
                       workspace: Workspace | None = None
                       ) -> AsyncGenerator[TurnEvent, None]:
        """Run one user turn, yielding events. Never raises for engine/provider failures: they
        become a `TurnError` event. Cancellation leaves a valid history. An unsaved session is
        saved first (`persist_session`; its id may change). The tokens of every completed model
        call are counted, however the turn ends. The history is read back only to repair it
        (`needs_repair`): the final reply comes from the stream itself. Turns of one session
        take turns across processes: a turn waits (saying so) while another process runs one.

        A step with calls that need approval stops at an interrupt: `approver` answers each
        request (None: it stays pending, the turn ends with `approval … pending` events and
        the session resumable). `resume` answers a session's pending step instead of sending
        `text` (`--approve`, or a dialog asked again after a restart). The turn's `bash:`
        tools read, write and run through `workspace` where it offers to (an editor's files
        and terminals, `tools/workspace_calls.py`); without one they run here."""
        text = scrub_surrogates(text)  # an argv byte that is not UTF-8 arrives as one
        meta = self._state.require()
        # Checked before anything is saved: a message the model cannot take leaves no trace.
        too_big = self._compactor.message_problem(text) if resume is None and text else None
        if too_big is not None:
            yield TurnError(message=too_big[0].upper() + too_big[1:])
            return
        if not meta.saved:
            try:
                self._book.persist_session()
            except OSError as exc:
                yield TurnError(message=f"could not create the session file: {exc}")
                return
        while True:
            self._stopped_for = []
            # One turn at a time per session, across processes (SessionHistory.session_turn).
            async with self._history.session_turn() as busy:
                if busy is not None:
                    yield TurnError(message=busy)
                    return
                async with contextlib.aclosing(
                        self._locked_turn(meta, text, resume, approver=approver,
                                          workspace=workspace)) as turn:
                    async for event in turn:
                        yield event
            if not self._stopped_for or approver is None:
                return
            # Asked with the lock released: a dialog may stay open for hours, and meanwhile
            # another process may run `--approve` (then the step is found answered).
            answers, waiting = await self._approvals.ask(self._stopped_for, approver)
            if waiting:
                for request in waiting:
                    yield ApprovalDecided(id=request.id, name=request.name,
                                          decision="pending", args=request.args)
                return
            text, resume = "", {**(resume or {}), **{
                k: ApprovalAnswer.from_value(v) for k, v in answers.items()}}

    async def _locked_turn(self, meta: SessionMeta, text: str,
                           resume: dict[str, ApprovalAnswer] | None, *, approver: Approver | None,
                           workspace: Workspace | None) -> AsyncGenerator[TurnEvent, None]:
        """`run_turn` once the session's turn lock is held, the session caught up. A step that
        stops for approval ends it: its requests left in `_stopped_for` for `run_turn` to ask
        the approver, or, without one, reported pending."""
        pending, problem = await self._before_step(resume, ask=approver is not None)
        if problem:
            yield TurnError(message=problem)
        if problem is not None:
            return
        history, tokens = self._history, self._tokens
        tally = _Tally()
        tokens.begin_turn()
        asked = HumanMessage(content=text, id=str(uuid.uuid4()))  # found again for accounting
        history.needs_repair = True  # until the turn ends cleanly
        inputs: Any = {"messages": [asked]}
        stopped_for: list[ApprovalRequest] = []  # what the step just streamed stopped for
        if resume is not None:
            inputs = Command(resume=resume_value(resume, pending))
        try:
            context = await self._run_context(meta, workspace, approver)
            while True:
                async for mode, data in self._host.graph.astream(
                    inputs,
                    history.config(),
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
                answers, waiting = await self._approvals.ask(pending, None)
                if waiting:  # the step stays in the checkpoint
                    history.needs_repair = False
                    if approver is not None:
                        self._stopped_for = pending
                        return
                    for request in waiting:
                        yield ApprovalDecided(id=request.id, name=request.name,
                                              decision="pending", args=request.args)
                    return
                inputs = Command(resume=answers)
            history.needs_repair = False
            yield TurnDone(text=tally.final_text())
        except (asyncio.CancelledError, GeneratorExit):
            await self._close_interrupted(tally, asked.id)
            raise
        except Exception as exc:  # provider, tool plumbing, anything: the app goes on
            await self._close_interrupted(tally, asked.id)
            yield TurnError(message=one_line(exc))
        finally:
            tokens.finish_turn(meta, tally.used_in, tally.used_out)

    async def _before_step(self, resume: dict[str, ApprovalAnswer] | None, *, ask: bool
                           ) -> tuple[list[ApprovalRequest], str | None]:
        """The session's pending step, and None to go on, "" to stop quietly (calls left for
        `run_turn` to ask), or a problem to report. A new message closes a pending step; a
        history left invalid is repaired."""
        approvals = self._approvals
        pending = await approvals.pending()
        if resume is None:
            if pending:  # a new message instead of an answer
                await approvals.close_pending(pending)
            elif self._history.needs_repair:
                await self._history.repair_session()
            return pending, None
        if not pending:
            return pending, "nothing waits for approval any more (answered elsewhere?)"
        unanswered = [request for request in pending if request.id not in resume]
        if unanswered and ask:  # asked by `run_turn`, the lock released meanwhile
            self._stopped_for = unanswered
            return pending, ""
        for request in pending:  # an "always" given with the answer is saved
            if request.id in resume:
                approvals.remember(request, resume[request.id])
        return pending, None

    def _turn_context(self, workspace: Workspace | None = None,
                      approver: Approver | None = None) -> AgentContext:
        """What the graph's nodes get for this turn (runtime context, never checkpointed)."""
        setting = self._compactor.prompt_setting
        context = agent_context(
            self._facts,
            toolbox=self._toolbox,
            memory=[entry.content for entry in self._host.memory.entries()],
            approvals=self._approvals.policy(),
            max_tool_calls=self._host.options.max_tool_calls,
            loading=setting("skill_loading"),
            decay_turns=setting("skill_decay_turns"),
            max_loaded=setting("skill_max_loaded"),
            workspace=workspace,
        )
        context.agents = self._sub_agents(approver)
        return context

    async def _run_context(self, meta: SessionMeta, workspace: Workspace | None,
                           approver: Approver | None) -> AgentContext:
        """The turn's context; a run's session turns as its agent (agent/run_profile.py)."""
        return await run_context(self._turn_context(workspace, approver),
                                 run_agent(meta, self._host.agents), self._host.agent.model_for)

    def _sub_agents(self, approver: Approver | None) -> SubAgents | None:
        """The session's sub-agents for this turn (None when no agent file is loaded)."""
        host, parts = self._host, self._host.agent
        if not host.agents.agents():
            return None
        lock = asyncio.Lock()  # one dialog at a time, whichever child asks

        async def ask(pending: list[ApprovalRequest]) -> dict[str, dict[str, Any]]:
            async with lock:
                answers, waiting = await self._approvals.ask(pending, approver)
            return denied_answers(waiting, answers)

        setup = ChildSetup(graph=host.graph, agents=host.agents, model_for=parts.model_for,
                           toolbox_for=lambda policy, child: parts.toolbox(lambda: policy,
                                                                           lambda: child),
                           servers=parts.given, parallel=parts.settings.agent_parallel)
        return SubAgents(setup, enabled=self._state.agent_policy().is_enabled,
                         thread=self._state.require().id, ask=ask)

    def _tally(self, event: TurnEvent, tally: _Tally) -> None:
        if isinstance(event, ChildEvent):  # a sub-agent's call: the turn's tokens too
            if isinstance(event.event, UsageReported):
                used = event.event
                tally.used_in += used.input_tokens
                tally.used_out += used.output_tokens
                self._tokens.add_call(used.input_tokens, used.output_tokens,
                                      used.cached_input_tokens, agent=event.agent)
        elif isinstance(event, TokenStreamed):
            tally.streamed.append(event.text)
        elif isinstance(event, SkillsInjected):
            self._state.last_call = event.context
        elif isinstance(event, UsageReported):
            tally.streamed.clear()
            tally.used_in += event.input_tokens
            tally.used_out += event.output_tokens
            self._tokens.add_call(event.input_tokens, event.output_tokens,
                                    event.cached_input_tokens)

    async def _close_interrupted(self, tally: _Tally, asked_id: str | None) -> None:
        """Repair the history of a turn that did not finish and settle its spent tokens,
        counting a call that completed (and was checkpointed) just before its usage event got
        out. One read of the history serves both."""
        history = self._history
        try:
            messages, _ = await history.repaired_history(partial_reply="".join(tally.streamed))
            seen = usage_after(messages, asked_id or "")
        except Exception:  # noqa: BLE001 - needs_repair stays set: repair runs before next turn
            return
        finally:
            # The graph's stream may still be winding down: check again before the next turn.
            history.needs_repair = True
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


__all__ = ["TurnLoop", "TurnParts"]
