"""`FakeDoor`: an in-memory front door for TUI tests (docs/architecture.md, "the door is
injected"; CONTRIBUTING.md says how to use it).

It implements the whole `Birdie` protocol with no engine, no model and no files: sessions and
their transcripts live in dicts, skills are rows with toggles, and a turn streams scripted
events. mypy checks it against the protocol (`[tool.mypy] files` in pyproject.toml and the
`_checked` assignment at the end), so a new door method the fake lacks fails the type check.

Build the app on it: `create_app(argv, door_factory=FakeDoor.factory(door))`.

It keeps the protocol's semantics, so a TUI bug shows on both doors: a turn belongs to the
session open when it was sent (switching away keeps it running); a gated call waits for the
approver's answer, and with none it stays pending (`pending_approvals`, `resume`; a new message
closes it as not run); a denied call reports "The user denied this tool call."; Esc (the stream
closed) records the reply so far marked interrupted; a raising `script` is a provider failure
(`error`). Each model call is billed in the ledger (and told as `totals`) and leaves a context
record. `BIRDIE_OFFLINE_TPS` paces its tokens as it does the offline model's.

A turn, by default (tests/tui/fake_tools.py): `injected`, and for `call <tool> {json}` with a
tool of an enabled skill a first `usage`, the `tool_call`, an `approval` if it is gated, the
`tool_result` and a second `injected`; then the reply as `token`s, `usage`, `done`. `script`
replaces it: a function from the text to the events (it may raise). `add_turn_elsewhere` plays
another process writing to a session (`session_pulse`).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from birdie_tui.events import (AgentsChanged, ApprovalDecided, ChangeEvent, InjectedSkill, MemoryChanged,
                               SessionOpened, SkillsChanged, SkillsInjected, StatusChanged,
                               TokenStreamed, ToolCallStarted, ToolFinished, TotalsChanged,
                               TurnDone, TurnError, TurnEvent, UsageReported)
from birdie_tui.modes import APPROVAL_MODES, ApprovalMode, LoadingMode, approval_mode_of, \
    loading_mode_of
from birdie_tui.service.protocol import Approver, Birdie, BirdieError, Listener, SettingValue
from birdie_tui.workspace import Workspace
from birdie_tui.service.rows import RunRecord, TriggerRow
from birdie_tui.service.rows import (AgentRow, AgentRunRow, BrokenAgentFile, ShellRun,
                                     ApprovalAnswer, ApprovalRequest, BrokenSkillFile,
                                     CallContext, CallUsage, CompactionRow, CostReport,
                                     InjectionView, McpRow, McpServerSpec, MemoryNote,
                                     ModelChoice, ModelFacts,
                                     NewSkill, Segment, SessionPulse, SessionRow, SettingsRow,
                                     SkillRow, Started, Status, TokenLedger, ToolCallItem,
                                     ToolRow, TranscriptItem, TurnCost, UserTurn)
from tests.tui.fake_tools import (DENIED, NOT_RUN_NEW_MESSAGE, READ_ONLY, TOOLS, default_skills,
                                  echo_reply, parse_call, pieces, summary_reply,
                                  unavailable_reply)

STAMP = "2026-01-02T09:30:00+00:00"  # fixed: snapshots stay deterministic
INTERRUPTED = "*[interrupted]*"  # the engine's mark on a cancelled reply
Script = Callable[[str], list[TurnEvent]]


@dataclass
class FakeSession:
    id: str
    title: str | None = None
    items: list[TranscriptItem] = field(default_factory=list)
    turns: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    skills: dict[str, bool] = field(default_factory=dict)  # this session's toggles
    agents: dict[str, bool] = field(default_factory=dict)  # this session's sub-agent toggles
    runs: list[AgentRunRow] = field(default_factory=list)  # its sub-agent calls
    pending: list[ApprovalRequest] = field(default_factory=list)  # a step left unanswered
    approved_skills: list[str] = field(default_factory=list)  # "always" answers
    rules: list[str] = field(default_factory=list)
    calls: list[CallUsage] = field(default_factory=list)  # the running (or last) turn's
    per_turn: list[int] = field(default_factory=list)  # tokens of each recorded turn
    contexts: list[CallContext] = field(default_factory=list)  # every model call's record
    saved: bool = False  # listed from its first message on, as the engine saves it then
    elsewhere: str = ""  # who else has it open (set by a test)
    changed: bool = False  # another process added to it since the last pulse


@dataclass
class Reply:
    """What a turn has said so far, and whether it stopped at an approval."""

    text: str = ""
    stopped: bool = False


class FakeDoor:
    """An in-memory `Birdie`; every call is recorded in `calls` (name only) for assertions."""

    def __init__(self, *, skills: Iterable[SkillRow] | None = None,
                 script: Script | None = None, user: str = "tester",
                 agents: Iterable[AgentRow] = ()) -> None:
        self.script = script
        self.user = user
        self.calls: list[str] = []
        self.workspaces: list[Workspace | None] = []  # what each send/resume was given
        self.started = False
        self._skills = {row.name: row for row in (default_skills() if skills is None
                                                  else skills)}
        self._agents = {row.name: row for row in agents}
        self.broken_agents: list[BrokenAgentFile] = []  # a test sets them
        self._sessions: dict[str, FakeSession] = {}
        self._ids = itertools.count(1)
        self._current = ""
        self._listeners: list[Listener] = []
        self._mode: ApprovalMode = "ask"
        self._loading: LoadingMode = "both"
        self._settings = SettingsRow()
        self._memory: list[MemoryNote] = []
        self._pending: list[ApprovalRequest] = []
        self._limit: int | None = None
        self._auto_compact = 0
        self._cwd = "/tmp"
        self.inputs: list[str] = []  # what record_input heard, oldest first (ctrl+r)
        self.given: dict[str, tuple[McpServerSpec, ...]] = {}  # session id -> its client's servers
        self.runs: list[RunRecord] = []  # the run log (`scheduled_runs`)
        self.triggers: list[TriggerRow] = []
        self.holder: str | None = None  # `scheduler_holder`

    @classmethod
    def factory(cls, door: FakeDoor | None = None) -> Callable[
            [argparse.Namespace, Mapping[str, str]], Birdie]:
        """A `door_factory` for `create_app`: always this door (a new one if None)."""
        made = door or cls()
        return lambda _args, _environ: made

    # -------------------------------------------------------------- helpers
    def _emit(self, event: ChangeEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _open_new(self) -> FakeSession:
        session = FakeSession(id=f"fake_{next(self._ids)}")
        self._sessions[session.id] = session
        self._current = session.id
        return session

    @property
    def session(self) -> FakeSession:
        return self._sessions[self._current]

    # -------------------------------------------------------------- life
    async def start(self, *, session_id: str | None = None, continue_last: bool = False,
                    enable: Iterable[str] = (), disable: Iterable[str] = (),
                    strict: bool = False) -> Started:
        self.calls.append("start")
        self.started = True
        problems: tuple[str, ...] = ()
        if session_id is not None and session_id in self._sessions:
            self._current, new = session_id, False
        elif continue_last and self._sessions:
            self._current, new = list(self._sessions)[-1], False
        else:
            if session_id is not None:
                problems = (f"no session {session_id!r}: a new session was opened",)
            self._open_new()
            new = True
        for name in enable:
            self.set_skill(name, True)
        for name in disable:
            self.set_skill(name, False)
        return Started(session_id=self._current, new=new, problems=problems)

    async def close(self) -> None:
        self.calls.append("close")
        self.started = False

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -------------------------------------------------------------- what is shown
    def status(self) -> Status:
        s = self.session
        return Status(model="fake · scripted", vendor="fake", session_id=s.id, title=s.title,
                      saved=s.saved, turns=s.turns, created_at=STAMP, user=self.user,
                      data_dir="/fake/home", skill_dirs=("/fake/skills",),
                      logs_dir="/fake/logs", approval_mode=self._mode)

    def ledger(self) -> TokenLedger:
        s = self.session
        return TokenLedger(calls=tuple(s.calls), context_window=100_000,
                           session_in=s.tokens_in, session_out=s.tokens_out,
                           per_turn=tuple(s.per_turn), turns=s.turns)

    def settings(self) -> SettingsRow:
        return self._settings

    def save_settings(self, **changes: SettingValue) -> None:
        self._settings = replace(self._settings, **changes)  # type: ignore[arg-type]

    def resume_command(self) -> str | None:
        return f"birdie-tui --session-id {self._current}" if self.session.turns else None

    # -------------------------------------------------------------- turns
    def send(self, text: str, *, approver: Approver | None = None,
             workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]:
        self.calls.append("send")
        self.workspaces.append(workspace)  # the fake's tools run nowhere: a test reads what came
        # The turn belongs to the session open now, whatever is opened while it runs.
        return self._turn(self.session, text, approver)

    async def _turn(self, session: FakeSession, text: str,
                    approver: Approver | None) -> AsyncIterator[TurnEvent]:
        for request in session.pending:  # a new message instead of an answer: not run
            session.items.append(TranscriptItem(role="tool", content=NOT_RUN_NEW_MESSAGE,
                                                tool_call_id=request.id, name=request.name,
                                                error=True))
        session.pending = []
        session.items.append(TranscriptItem(role="user", content=text))
        session.saved = True
        if session.title is None:
            session.title = text[:40]
        session.calls = []
        reply = Reply()
        try:
            if self.script is not None:
                for event in self.script(text):
                    await self._tick()
                    self._account(session, event, reply)
                    yield event
            else:
                async for event in self._default_turn(session, text, approver, reply):
                    self._account(session, event, reply)
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            # As the engine repairs a cancelled turn: the reply so far, marked interrupted.
            self._record(session, f"{reply.text.rstrip()}\n\n{INTERRUPTED}".strip())
            raise
        except Exception as exc:  # noqa: BLE001 - the engine says a provider failure as an event
            self._record(session, reply.text)
            yield TurnError(message=str(exc))
            return
        if not reply.stopped:
            self._record(session, reply.text)

    async def _tick(self) -> None:
        """One token's time: BIRDIE_OFFLINE_TPS paces the fake as it does the offline model."""
        tps = float(os.environ.get("BIRDIE_OFFLINE_TPS") or 0)
        await asyncio.sleep(1 / tps if tps > 0 else 0)

    def _account(self, session: FakeSession, event: TurnEvent, reply: Reply) -> None:
        match event:
            case TokenStreamed(text=piece):
                reply.text += piece
            case UsageReported(input_tokens=i, output_tokens=o):
                session.calls.append(CallUsage(i, o))
                session.tokens_in += i
                session.tokens_out += o
            case TurnDone(text=done) if done:
                reply.text = done
            case ApprovalDecided(decision="pending"):
                reply.stopped = True

    def _record(self, session: FakeSession, reply: str) -> None:
        """The turn is over: its reply in the history, counted once, the listeners told."""
        session.items.append(TranscriptItem(role="assistant", content=reply))
        session.turns += 1
        session.per_turn.append(sum(c.input + c.output for c in session.calls))
        self._emit(TotalsChanged(session_in=session.tokens_in, session_out=session.tokens_out))
        self._emit(StatusChanged())
        self._emit(SkillsChanged())

    def _model_call(self, session: FakeSession, prompt: int) -> list[TurnEvent]:
        """A model call's prompt report, and its context record for the context panel."""
        injected = [InjectedSkill(r.name, "always_inject", 10) for r in self._skills.values()
                    if self._enabled(r.name) and r.kind == "always"]
        context = CallContext(turn=session.turns + 1, call=len(session.calls) + 1, segments=(
            Segment("tools", tokens=40), Segment("base", tokens=prompt),
            Segment("catalog", detail=f"{len(self._skills)} skills", tokens=20),
            *(Segment("always", name=s.name, tokens=s.tokens) for s in injected)))
        session.contexts.append(context)
        return [SkillsInjected(skills=injected, catalog_tokens=20,
                               prompt_tokens=prompt + 40, context=context)]

    async def _usage(self, session: FakeSession, prompt: int, said: str
                     ) -> AsyncIterator[TurnEvent]:
        """A model call's usage, then (as the engine's ledger does) the new totals."""
        yield UsageReported(input_tokens=prompt, output_tokens=max(1, len(said.split())))
        self._emit(TotalsChanged(session_in=session.tokens_in, session_out=session.tokens_out))

    async def _default_turn(self, session: FakeSession, text: str, approver: Approver | None,
                            reply: Reply) -> AsyncIterator[TurnEvent]:
        prompt = 100 + sum(len(item.content.split()) for item in session.items)
        for event in self._model_call(session, prompt):
            yield event
        call = parse_call(text)
        tools = [name for row in self.skill_rows() if row.enabled for name in row.tool_names]
        if call is not None and call[0] in tools:
            await self._tick()
            async for event in self._usage(session, prompt, ""):
                yield event
            async for event in self._tool_step(session, call[0], call[1], approver, reply):
                yield event
            if reply.stopped:
                return
            for event in self._model_call(session, prompt + 20):
                yield event
            result = session.items[-1]
            answer = summary_reply(call[0], result.content, result.error)
        elif call is not None:
            answer = unavailable_reply(call[0])
        else:
            answer = echo_reply(text, [s.name for s in self._model_call_skills()], tools)
        for piece in pieces(answer):
            await self._tick()
            yield TokenStreamed(text=piece)
        async for event in self._usage(session, prompt + 20, answer):
            yield event
        yield TurnDone(text=answer)

    def _model_call_skills(self) -> list[SkillRow]:
        return [r for r in self._skills.values() if self._enabled(r.name) and r.kind == "always"]

    async def _tool_step(self, session: FakeSession, name: str, args: dict[str, object],
                         approver: Approver | None, reply: Reply) -> AsyncIterator[TurnEvent]:
        """One tool call: asked about if gated (waiting for the answer), then run or not."""
        tool = TOOLS[name]
        call_id = f"call_{next(self._ids)}"
        session.items.append(TranscriptItem(role="assistant", content="", tool_calls=(
            ToolCallItem(call_id, name, dict(args)),)))
        yield ToolCallStarted(id=call_id, name=name, args=dict(args))
        answer = ApprovalAnswer("allow")
        if tool.asks:
            request = ApprovalRequest(id=call_id, name=name, args=dict(args), skill=tool.skill,
                                      command=tool.command(args),
                                      why=f"skill {tool.skill} requires approval for it")
            asked = self.decided_answer(request, session)
            if asked is None and approver is not None:
                asked = await approver(request)  # the turn waits for the user
            if asked is not None:
                answer = asked
                self._remember(session, request, answer)
                yield ApprovalDecided(id=call_id, name=name, decision="approved"
                                      if answer.decision == "allow" else "denied")
            else:  # no one answered: the step stays pending (`resume`)
                session.pending.append(request)
                yield ApprovalDecided(id=call_id, name=name, decision="pending",
                                      args=dict(args))
                return
        async for event in self._run_tool(session, call_id, name, args, answer):
            yield event

    async def _run_tool(self, session: FakeSession, call_id: str, name: str,
                        args: dict[str, object], answer: ApprovalAnswer
                        ) -> AsyncIterator[TurnEvent]:
        if answer.decision == "allow":
            content, error = await TOOLS[name].run(args)
        elif answer.reason == READ_ONLY:
            content, error = f"Not run: {READ_ONLY}.", True
        else:
            content = DENIED + (f" Reason: {answer.reason}" if answer.reason else "")
            error = True
        session.items.append(TranscriptItem(role="tool", content=content, tool_call_id=call_id,
                                            name=name, error=error))
        yield ToolFinished(id=call_id, name=name, content=content, error=error)

    def check_message(self, text: str) -> str | None:
        return None

    def resume(self, answers: dict[str, ApprovalAnswer] | None = None, *,
               approver: Approver | None = None,
               workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]:
        self.calls.append("resume")
        self.workspaces.append(workspace)
        return self._resume(self.session, answers or {})

    async def _resume(self, session: FakeSession, answers: dict[str, ApprovalAnswer]
                      ) -> AsyncIterator[TurnEvent]:
        """The pending step answered (a missing answer denies), then the rest of the turn."""
        pending, session.pending = session.pending, []
        session.calls = []
        reply = Reply()
        for request in pending:
            answer = answers.get(request.id) or ApprovalAnswer("deny", "no answer")
            self._remember(session, request, answer)
            yield ApprovalDecided(id=request.id, name=request.name, decision="approved"
                                  if answer.decision == "allow" else "denied")
            async for event in self._run_tool(session, request.id, request.name,
                                              dict(request.args), answer):
                yield event
        result = session.items[-1]
        answer_text = summary_reply(result.name, result.content, result.error) if pending \
            else "Nothing was waiting."
        for piece in pieces(answer_text):
            await self._tick()
            yield TokenStreamed(text=piece)
            reply.text += piece
        yield TurnDone(text=answer_text)
        session.items.append(TranscriptItem(role="assistant", content=answer_text))
        self._emit(StatusChanged())

    async def pending_approvals(self) -> list[ApprovalRequest]:
        return list(self.session.pending)

    def decided_answer(self, request: ApprovalRequest,
                       session: FakeSession | None = None) -> ApprovalAnswer | None:
        """The mode and the saved answers decide a gated call, as the engine's policy does."""
        session = session or self.session
        if self._mode == "read-only":
            return ApprovalAnswer("deny", READ_ONLY)
        if request.name in session.rules or request.rule_for("command") in session.rules \
                or (request.skill and request.skill in session.approved_skills):
            return ApprovalAnswer("allow")
        return ApprovalAnswer("allow") if self._mode == "auto" else None

    def _remember(self, session: FakeSession, request: ApprovalRequest,
                  answer: ApprovalAnswer) -> None:
        """An "always" answer, saved in the session (as the engine saves it)."""
        if answer.decision != "allow" or not answer.remember:
            return
        if answer.remember == "skill":
            session.approved_skills.append(request.skill)
        else:
            rule = request.rule_for(answer.remember)
            if rule is not None and rule not in session.rules:
                session.rules.append(rule)
        self._emit(StatusChanged())

    def approval_mode(self) -> ApprovalMode:
        return self._mode

    def set_approval_mode(self, mode: str | None = None) -> ApprovalMode:
        if mode is None:
            self._mode = APPROVAL_MODES[(APPROVAL_MODES.index(self._mode) + 1)
                                        % len(APPROVAL_MODES)]
        else:
            known = approval_mode_of(mode)
            if known is None:
                raise BirdieError(f"unknown approval mode {mode!r}")
            self._mode = known
        self._emit(StatusChanged())
        return self._mode

    def saved_approvals(self) -> tuple[list[str], list[str]]:
        return list(self.session.approved_skills), list(self.session.rules)

    def forget_approvals(self) -> None:
        self.session.approved_skills, self.session.rules = [], []
        self._emit(StatusChanged())

    def save_session(self) -> str:
        return self._current

    async def take_last_turn(self) -> str:
        session = self.session
        users = [i for i, item in enumerate(session.items) if item.role == "user"]
        if not users:
            raise BirdieError("nothing to retry")
        text = session.items[users[-1]].content
        del session.items[users[-1]:]
        session.turns -= 1
        session.per_turn = session.per_turn[:-1]  # its tokens stay billed (as the engine's)
        self._emit(StatusChanged())
        return text

    def _user_at(self, n: int | None, what: str) -> int:
        """The index in the items of your message `n` (/history's numbering; None: last)."""
        users = [i for i, item in enumerate(self.session.items) if item.role == "user"]
        if not users:
            raise BirdieError(f"nothing to {what}: this session has no message yet")
        if n is None:
            return users[-1]
        if not 1 <= n <= len(users):
            raise BirdieError(f"no message {n} to {what}: this session has messages 1 to "
                              f"{len(users)} (/history lists them)")
        return users[n - 1]

    async def rewind(self, n: int | None = None) -> str:
        self.calls.append("rewind")
        session = self.session
        at = self._user_at(n, "rewind")
        text = session.items[at].content
        kept = sum(item.role == "user" for item in session.items[:at])
        del session.items[at:]
        session.turns, session.per_turn = kept, session.per_turn[:kept]
        self._emit(SessionOpened(id=session.id, new=False))
        self._emit(StatusChanged())
        return text

    async def fork(self, n: int | None = None) -> str:
        self.calls.append("fork")
        source = self.session
        at = self._user_at(n, "fork")
        fork = self._open_new()
        fork.title = f"fork of {source.title or source.id}"
        fork.items = list(source.items[:at])
        fork.turns = sum(item.role == "user" for item in fork.items)
        fork.saved = True
        self._emit(SessionOpened(id=fork.id, new=False))
        return fork.id

    # -------------------------------------------------------------- sessions
    def session_rows(self) -> list[SessionRow]:
        return [SessionRow(id=s.id, title=s.title or "(untitled)", updated_at=STAMP,
                           turns=s.turns, input_tokens=s.tokens_in, output_tokens=s.tokens_out,
                           current=s.id == self._current, created_at=STAMP)
                for s in reversed(self._sessions.values()) if s.saved or s.id == self._current]

    async def session_pulse(self) -> SessionPulse:
        """What `add_turn_elsewhere` did to the open session since the last look."""
        session = self.session
        changed, session.changed = session.changed, False
        return SessionPulse(changed=changed, elsewhere=session.elsewhere)

    def add_turn_elsewhere(self, session_id: str, text: str, reply: str,
                           who: str = "process 4242") -> None:
        """Another process (a `--print`, another TUI) adds a turn to a session: what
        `session_pulse` then reports, as a shared store would."""
        session = self._sessions[session_id]
        session.items += [TranscriptItem(role="user", content=text),
                          TranscriptItem(role="assistant", content=reply)]
        session.turns += 1
        session.saved = True
        session.elsewhere, session.changed = who, True

    async def transcript(self) -> list[TranscriptItem]:
        return list(self.session.items)

    async def injection(self) -> InjectionView:
        return InjectionView()

    async def new_session(self) -> None:
        session = self._open_new()
        self._emit(SessionOpened(id=session.id, new=True))

    async def open_session(self, session_id: str) -> None:
        if session_id == self._current:
            return
        if session_id not in self._sessions:
            raise BirdieError(f"no session {session_id!r}")
        self._current = session_id
        self._emit(SessionOpened(id=session_id, new=False))

    def rename_session(self, session_id: str, title: str) -> None:
        if session_id not in self._sessions:
            raise BirdieError(f"no session {session_id!r}")
        self._sessions[session_id].title = title
        self._emit(StatusChanged())

    async def delete_session(self, session_id: str) -> None:
        if self._sessions.pop(session_id, None) is None:
            raise BirdieError(f"no session {session_id!r}")
        if session_id == self._current:
            self._emit(SessionOpened(id=self._open_new().id, new=True))

    # -------------------------------------------------------------- skills, tools, MCP
    def _enabled(self, name: str) -> bool:
        return self.session.skills.get(name, self._skills[name].enabled_by_default)

    def skill_rows(self) -> list[SkillRow]:
        return [replace(row, enabled=self._enabled(row.name)) for row in self._skills.values()]

    def broken_files(self) -> list[BrokenSkillFile]:
        return []

    # -------------------------------------------------------------- sub-agents
    def agent_rows(self) -> list[AgentRow]:
        return [replace(row, enabled=self.session.agents.get(row.name, row.enabled_by_default))
                for row in self._agents.values()]

    def broken_agent_files(self) -> list[BrokenAgentFile]:
        return list(self.broken_agents)

    def set_agent(self, name: str, enabled: bool | None = None) -> AgentRow:
        known = next((n for n in self._agents if n.lower() == name.lower()), None)
        if known is None:
            raise BirdieError(f"unknown agent {name!r}; /agent list shows the loaded ones")
        now = self.session.agents.get(known, self._agents[known].enabled_by_default)
        self.session.agents[known] = not now if enabled is None else enabled
        self._emit(AgentsChanged())
        return next(row for row in self.agent_rows() if row.name == known)

    def agent_runs(self, session_id: str | None = None) -> list[AgentRunRow]:
        session = self.session if session_id is None else self._sessions.get(session_id)
        return list(session.runs) if session is not None else []

    async def child_contexts(self, child: str) -> list[CallContext]:
        return []

    # The run log, the triggers and who runs them: set by a test (`runs` in any order).
    def scheduled_runs(self, agent: str | None = None, limit: int = 100) -> list[RunRecord]:
        self.calls.append("scheduled_runs")
        runs = [run for run in self.runs if agent is None or run.agent == agent]
        return sorted(runs, key=lambda run: run.started_at, reverse=True)[:limit]

    def trigger_rows(self) -> list[TriggerRow]:
        return list(self.triggers)

    def scheduler_holder(self) -> str | None:
        return self.holder

    async def run_on_its_own(self, title: str, text: str) -> str:
        """What `agents run` or the scheduler leaves: a new saved session `title` with one
        turn that had no one to ask (a gated call stays pending). The shown session stays."""
        shown = self._current
        session = self._open_new()
        self._current = shown
        session.title = title
        async for _event in self._turn(session, text, None):
            pass
        return session.id

    def set_skill(self, name: str, enabled: bool | None = None) -> SkillRow:
        # Typed names match whatever their case, as the local door's do.
        name = next((known for known in self._skills if known.lower() == name.lower()), name)
        if name not in self._skills:
            raise BirdieError(f"no skill named {name!r}")
        self.session.skills[name] = not self._enabled(name) if enabled is None else enabled
        self._emit(SkillsChanged())
        return replace(self._skills[name], enabled=self._enabled(name))

    async def reload_skills(self, touched: Iterable[Path] = (), *, forced: bool = False) -> None:
        self._emit(SkillsChanged())

    async def watch_skills(self) -> None:
        return None  # nothing to follow: the fake's skills change only by calls

    async def tools(self) -> list[ToolRow]:
        return [ToolRow(name, row.description) for row in self._skills.values()
                if self._enabled(row.name) for name in row.tool_names]

    def mcp_rows(self) -> list[McpRow]:
        return [_given_row(spec) for spec in self.given.get(self._current, ())]

    async def restart_mcp(self, skill: str) -> McpRow:
        raise BirdieError(f"{skill!r} is not an MCP skill")

    async def attach_mcp_servers(self, servers: Sequence[McpServerSpec], *,
                                 start: bool = True) -> list[McpRow]:
        """Recorded per session; nothing runs (the rows say "not started")."""
        self.calls.append("attach_mcp_servers")
        self.given[self._current] = tuple(servers)
        self._emit(SkillsChanged())
        return self.mcp_rows()

    # -------------------------------------------------------------- memory
    def memory(self) -> list[MemoryNote]:
        return list(self._memory)

    def remember(self, text: str) -> MemoryNote:
        note = MemoryNote(id=f"m{len(self._memory) + 1}", content=text)
        self._memory.append(note)
        self._emit(MemoryChanged(count=len(self._memory)))
        return note

    def forget(self, key: str) -> MemoryNote:
        for note in self._memory:
            if key in (note.id, note.content):
                self._memory.remove(note)
                self._emit(MemoryChanged(count=len(self._memory)))
                return note
        raise BirdieError(f"no memory {key!r}")

    # -------------------------------------------------------------- models
    def model_facts(self) -> ModelFacts:
        return ModelFacts(label="fake · scripted", context_window=100_000, price=None)

    def model_choices(self) -> list[ModelChoice]:
        return [ModelChoice("fake", ("scripted",), True, "scripted")]

    async def switch_model(self, spec: str) -> str:
        if spec not in ("fake", "fake:scripted", "scripted"):
            raise BirdieError(f"unknown model {spec!r}")
        return "fake · scripted"

    # -------------------------------------------------------------- commands
    def cost(self) -> CostReport:
        s = self.session
        return CostReport(model="fake · scripted", turns=s.turns, input=s.tokens_in, cached=0,
                          output=s.tokens_out, cost_usd=None, per_turn=tuple(
                              TurnCost(n, "fake · scripted", tokens, 0, 0, None)
                              for n, tokens in enumerate(s.per_turn, 1)))

    async def history(self, limit: int = 10) -> list[UserTurn]:
        users = [item.content for item in self.session.items if item.role == "user"]
        return [UserTurn(turn=n, text=text) for n, text in enumerate(users, 1)][-limit:]

    def input_history(self, limit: int = 1000) -> list[str]:
        """Newest first, each once: what the file-backed doors answer."""
        return list(dict.fromkeys(reversed(self.inputs)))[:limit]

    def record_input(self, text: str) -> None:
        if text.strip():
            self.inputs.append(text)

    async def new_skill(self, name: str) -> NewSkill:
        self._skills[name] = SkillRow(name, "knowledge", "A new skill.", 0)
        self._emit(SkillsChanged())
        return NewSkill(name=name, path=f"/fake/skills/{name}/SKILL.MD", folder_added=False)

    def tool_call_limit(self) -> int | None:
        return self._limit

    def set_tool_call_limit(self, limit: int | None) -> int | None:
        self._limit = limit
        return limit

    def working_dir(self) -> str:
        return self._cwd

    def change_dir(self, path: str) -> str:
        self._cwd = path if path.startswith("/") else f"{self._cwd.rstrip('/')}/{path}"
        return self._cwd

    async def run_shell(self, command: str) -> ShellRun:
        """What `!command` runs: here only `echo`, refused in read-only mode as the engine does."""
        if self._mode == "read-only":
            why = "read-only mode: tools that need approval do not run"
            return ShellRun(command, f"Not run: {why}.", True, why)
        if command.startswith("echo "):
            return ShellRun(command, command[5:] + "\n", False)
        return ShellRun(command, f"bash: {command.split()[0]}: command not found", True)

    # -------------------------------------------------------------- what the model sees
    async def contexts(self) -> list[CallContext]:
        return list(self.session.contexts)

    async def compact(self, instructions: str = "") -> CompactionRow:
        raise BirdieError("nothing to compact")

    def auto_compact_percent(self) -> int:
        return self._auto_compact

    def set_auto_compact(self, percent: int | None) -> int:
        self._auto_compact = percent or 0
        return self._auto_compact

    async def export(self, fmt: str = "markdown") -> str:
        return "\n\n".join(f"{item.role}: {item.content}" for item in self.session.items)

    def skill_loading(self) -> LoadingMode:
        return self._loading

    def set_skill_loading(self, mode: str | None) -> LoadingMode:
        known = loading_mode_of(mode or "both")
        if known is None:
            raise BirdieError(f"unknown loading mode {mode!r}")
        self._loading = known
        return known


_checked: Birdie = FakeDoor()  # mypy: the fake satisfies the whole protocol


def _given_row(spec: McpServerSpec) -> McpRow:
    return McpRow(skill=f"acp:{spec.name}", transport=spec.transport,
                  target=spec.url or " ".join([spec.command, *spec.args]),
                  state="not started", enabled=True)
