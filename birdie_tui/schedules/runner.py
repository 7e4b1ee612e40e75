"""One run of a trigger: a new top-level session, configured the way a sub-agent's child is,
one message, no one to ask, and a record in the run log whatever happens.

Why the engine and not the door: the scheduler that calls this (`schedules/scheduler.py`) is
core and has no door, and a run has no front end to serve while it runs. So the runner drives
the engine, the core's API the local door wraps, the way the door does for `--print`: a new
session, one message, no approver (a call that needs approval leaves the step pending in the
checkpoint, to be answered later). `agents run` calls it too (`cli/agents_run.py`): one path
for every run. Each run builds its own engine: the run's approval mode is the engine's (the
host's, shared by its sessions), and runs of a scheduler must not share one.

What must outlive the run is in the session, read by the engine at every turn
(`agent/run_profile.py`): `extra["run"]` (run id, trigger key, agent, approval), the agent's
skills as the session's grants, the trigger's `allow` rules as the session's saved rules. So a
pending run answered in the TUI or with `--approve` goes on as the agent, and the turn that
ends updates the record (`service/local/runs.py`).

The approval, with no one to ask (schedules/models.py, `RunApproval`): read-only runs calls
that need no approval and leaves the others pending (the engine's `ask` mode, no approver);
ask leaves every skill tool's call pending unless an allow rule runs it; auto runs all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from birdie_tui.agent.approvals import APPROVAL_RULES
from birdie_tui.agent.engine import Engine, EngineError, EngineOptions
from birdie_tui.agent.subagents import child_policy
from birdie_tui.agent_files.models import AgentDef
from birdie_tui.events import SessionOpened, TurnEvent
from birdie_tui.providers.config import ConfigError
from birdie_tui.schedules.outcome import RunTurn
from birdie_tui.schedules.message import run_prompt
from birdie_tui.schedules.models import RUN_EXTRA, RUN_MODES, RunRecord, Trigger
from birdie_tui.store.paths import InvalidName
from birdie_tui.store.protocols import RunLogProtocol
from birdie_tui.text import one_line

OnEvent = Callable[[TurnEvent], None]
LOG = logging.getLogger(__name__)


class RunError(Exception):
    """A run that cannot start (its agent is gone): the text is the record's error."""


def _said(exc: BaseException) -> str:
    """One line for the record: a sentence as it is, anything else with its type's name."""
    return one_line(exc, as_is=(RunError, EngineError, ConfigError, InvalidName))


def host_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def now() -> datetime:
    return datetime.now(UTC)


class _Log:
    """The run's record, saved at every change; a failing log never stops the run."""

    def __init__(self, record: RunRecord, log: RunLogProtocol):
        self.record, self._log = record, log
        self.problems: list[str] = []

    def save(self, **changes: Any) -> None:
        self.record = replace(self.record, **changes)
        try:
            self._log.save(self.record)
        except Exception as exc:  # noqa: BLE001 - said in the log file, the run goes on
            problem = f"the run log could not be written: {one_line(exc)}"
            if problem not in self.problems:
                self.problems.append(problem)
                LOG.warning("run %s: %s", self.record.run_id, problem)


async def run_trigger(trigger: Trigger, *, options: EngineOptions,
                      changed_paths: Sequence[str] = (), fire_time: datetime | None = None,
                      run_log: RunLogProtocol, agents: Mapping[str, AgentDef] | None = None,
                      on_event: OnEvent | None = None) -> RunRecord:
    """Run `trigger` once and return its record (saved "running" first, then done, failed,
    pending or cancelled: every way out writes it). `agents`: the agents by name (the
    scheduler's load); None: the engine's own. `on_event` hears the turn's events
    (`agents run --output-format stream-json`). Cancelling the task ends the run
    "cancelled" (and re-raises); nothing else raises."""
    log = _Log(RunRecord(run_id=uuid.uuid4().hex, trigger_key=trigger.key, agent=trigger.agent,
                         trigger=trigger.describe(), user=run_log.user, status="running",
                         started_at=now(), fire_time=fire_time,
                         changed_paths=tuple(changed_paths), host=host_id()), run_log)
    log.save()
    engine: Engine | None = None
    try:
        engine = Engine(options)
        await engine.start()
        agent = _agent_of(trigger, engine, agents)
        await _open_session(engine, trigger, agent, log)
        if on_event is not None and log.record.session_id:  # as --print's stream starts
            on_event(SessionOpened(id=log.record.session_id, new=True))
        turn = await _run_turn(engine, run_prompt(trigger, agent, changed_paths), on_event)
        log.save(status=turn.status, answer=turn.reply or None, error=turn.note)
    except asyncio.CancelledError:
        log.save(status="cancelled", error="cancelled before it ended (the session is kept)")
        raise
    except Exception as exc:  # noqa: BLE001 - a crash is a failed run, never a lost one
        log.save(status="failed", error=_said(exc))
    finally:
        if log.record.status == "running":  # a BaseException (SystemExit) went through
            log.save(status="failed", error="stopped before it ended")
        _settle(log, engine)
        if engine is not None:
            with contextlib.suppress(Exception):
                await engine.aclose()
    return log.record


def _agent_of(trigger: Trigger, engine: Engine, agents: Mapping[str, AgentDef] | None
              ) -> AgentDef | None:
    if trigger.agent is None:
        return None
    agent = agents.get(trigger.agent) if agents is not None else \
        engine.agent.agents.get(trigger.agent)
    if agent is None:
        raise RunError(f"no agent named {trigger.agent!r} in the agent folders")
    return agent


async def _open_session(engine: Engine, trigger: Trigger, agent: AgentDef | None,
                        log: _Log) -> None:
    """A new session, titled and marked as the run, with the agent's skills only and the
    trigger's allow rules, written now so the record names it from the start."""
    await engine.open_session(None)
    meta = engine.require_session()
    meta.title = trigger.title()
    meta.extra[RUN_EXTRA] = {"run_id": log.record.run_id, "trigger_key": trigger.key,
                             "agent": trigger.agent, "approval": trigger.approval}
    if trigger.allow:
        meta.extra[APPROVAL_RULES] = list(trigger.allow)
    if agent is not None:
        skills = engine.skills()
        owners = {tool.name: skill.name for skill in skills for tool in skill.tools}
        engine.state.policy = child_policy(agent, [s.name for s in skills], owners.get)
    engine.set_approval_mode(RUN_MODES[trigger.approval])
    log.save(session_id=engine.persist_session().id)


async def _run_turn(engine: Engine, prompt: str, on_event: OnEvent | None) -> RunTurn:
    turn = RunTurn()
    async with contextlib.aclosing(engine.run_turn(prompt)) as events:
        async for event in events:
            turn.see(event)
            if on_event is not None:
                on_event(event)
    return turn


def _settle(log: _Log, engine: Engine | None) -> None:
    """The end: the session's usage and cost (the run is the session), the time it ended."""
    changes: dict[str, Any] = {"finished_at": now()}
    if engine is not None and engine.session is not None and engine.session_saved:
        with contextlib.suppress(Exception):
            ledger = engine.token_ledger()
            changes.update(input_tokens=ledger.session_in, output_tokens=ledger.session_out,
                           cost=ledger.cost_usd)
    log.save(**changes)


__all__ = ["RunError", "run_trigger"]
