"""`FakeDoor`: an in-memory front door for TUI tests (docs/architecture.md, "the door is
injected"; CONTRIBUTING.md says how to use it).

It implements the whole `Birdie` protocol with no engine, no model and no files: sessions and
their transcripts live in dicts, skills are rows with toggles, and a turn streams scripted
events. mypy checks it against the protocol (`[tool.mypy] files` in pyproject.toml and the
`_checked` assignment at the end), so a new door method the fake lacks fails the type check.

Build the app on it: `create_app(argv, door_factory=FakeDoor.factory(door))`.

A turn, by default: `session` (first turn of a session), `injected`, the reply as `token`s
("echo: <text>"), `usage`, `done`. A message starting with "tool " also calls the tool `fake_tool`:
`tool_call`, an `approval` (the mode decides, or the approver the TUI passed is asked),
`tool_result`. `script` replaces the default: it gets the text and returns the events.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from birdie_tui.events import (ApprovalDecided, ChangeEvent, InjectedSkill, MemoryChanged,
                               SessionOpened, SkillsChanged, SkillsInjected, StatusChanged,
                               TokenStreamed, ToolCallStarted, ToolFinished, TotalsChanged,
                               TurnDone, TurnEvent, UsageReported)
from birdie_tui.modes import APPROVAL_MODES, ApprovalMode, LoadingMode, approval_mode_of, \
    loading_mode_of
from birdie_tui.service.protocol import Approver, Birdie, BirdieError, Listener, SettingValue
from birdie_tui.service.rows import (ApprovalAnswer, ApprovalRequest, BrokenSkillFile,
                                     CallContext, CompactionRow, CostReport, InjectionView,
                                     McpRow, MemoryNote, ModelChoice, ModelFacts, NewSkill,
                                     SessionPulse, SessionRow, SettingsRow, SkillRow, Started,
                                     Status,
                                     TokenLedger, ToolCallItem, ToolRow, TranscriptItem,
                                     UserTurn)

STAMP = "2026-01-02T09:30:00+00:00"  # fixed: snapshots stay deterministic
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


def default_skills() -> list[SkillRow]:
    """The same names as tests.agent.conftest.write_skills, so tests read alike on both doors."""
    return [SkillRow("Echoer", "tools", "Echo things back.", 1, tool_names=("echo",)),
            SkillRow("Quiet", "knowledge", "Stays off unless asked.", 0,
                     enabled=False, enabled_by_default=False)]


class FakeDoor:
    """An in-memory `Birdie`; every call is recorded in `calls` (name only) for assertions."""

    def __init__(self, *, skills: Iterable[SkillRow] | None = None,
                 script: Script | None = None, user: str = "tester") -> None:
        self.script = script
        self.user = user
        self.calls: list[str] = []
        self.started = False
        self._skills = {row.name: row for row in (default_skills() if skills is None
                                                  else skills)}
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
                problems = (f"no session {session_id!r}; a new one was opened",)
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
                      saved=s.turns > 0, turns=s.turns, created_at=STAMP, user=self.user,
                      data_dir="/fake/home", skill_dirs=("/fake/skills",),
                      logs_dir="/fake/logs", approval_mode=self._mode)

    def ledger(self) -> TokenLedger:
        s = self.session
        return TokenLedger(session_in=s.tokens_in, session_out=s.tokens_out, turns=s.turns)

    def settings(self) -> SettingsRow:
        return self._settings

    def save_settings(self, **changes: SettingValue) -> None:
        self._settings = replace(self._settings, **changes)  # type: ignore[arg-type]

    def resume_command(self) -> str | None:
        return f"birdie-tui --session-id {self._current}" if self.session.turns else None

    # -------------------------------------------------------------- turns
    def send(self, text: str, *, approver: Approver | None = None) -> AsyncIterator[TurnEvent]:
        self.calls.append("send")
        return self._turn(text, approver)

    async def _turn(self, text: str, approver: Approver | None) -> AsyncIterator[TurnEvent]:
        session = self.session
        session.items.append(TranscriptItem(role="user", content=text))
        if session.title is None:
            session.title = text[:40]
        if self.script is not None:
            events = self.script(text)
        else:
            events = await self._default_events(text, session, approver)
        reply = ""
        for event in events:
            match event:
                case TokenStreamed(text=piece):
                    reply += piece
                case UsageReported(input_tokens=i, output_tokens=o):
                    session.tokens_in += i
                    session.tokens_out += o
                case TurnDone(text=done) if done:
                    reply = done
            yield event
        session.items.append(TranscriptItem(role="assistant", content=reply))
        session.turns += 1
        self._emit(TotalsChanged(session_in=session.tokens_in, session_out=session.tokens_out))
        self._emit(StatusChanged())

    async def _default_events(self, text: str, session: FakeSession,
                              approver: Approver | None) -> list[TurnEvent]:
        events: list[TurnEvent] = []
        if session.turns == 0:
            events.append(SessionOpened(id=session.id, new=True))
        events.append(SkillsInjected(
            skills=[InjectedSkill(r.name, "always_inject", 10) for r in self._skills.values()
                    if self._enabled(r.name)], catalog_tokens=20, prompt_tokens=50))
        if text.startswith("tool "):
            events.extend(await self._tool_events(text.removeprefix("tool "), approver))
        reply = f"echo: {text}"
        events.extend(TokenStreamed(text=word) for word in _pieces(reply))
        events.append(UsageReported(input_tokens=100, output_tokens=len(reply.split())))
        events.append(TurnDone(text=reply))
        return events

    async def _tool_events(self, arg: str, approver: Approver | None) -> list[TurnEvent]:
        call_id = f"call_{next(self._ids)}"
        args: dict[str, object] = {"text": arg}
        request = ApprovalRequest(id=call_id, name="fake_tool", args=dict(args),
                                  skill="Echoer", command=arg, why="fake_tool runs a command")
        answer = self.decided_answer(request)
        if answer is None and approver is not None:
            answer = await approver(request)
        if answer is None:  # no one answered: it stays pending (`resume`)
            self._pending.append(request)
            return [ToolCallStarted(id=call_id, name="fake_tool", args=dict(args)),
                    ApprovalDecided(id=call_id, name="fake_tool", decision="pending",
                                    args=dict(args))]
        allowed = answer.decision == "allow"
        decision = "approved" if allowed else "denied"
        self.session.items.append(TranscriptItem(
            role="assistant", content="", tool_calls=(ToolCallItem(call_id, "fake_tool",
                                                                   dict(args)),)))
        content = arg if allowed else f"denied: {answer.reason}"
        self.session.items.append(TranscriptItem(role="tool", content=content,
                                                 tool_call_id=call_id, name="fake_tool",
                                                 error=not allowed))
        return [ToolCallStarted(id=call_id, name="fake_tool", args=dict(args)),
                ApprovalDecided(id=call_id, name="fake_tool", decision=decision),
                ToolFinished(id=call_id, name="fake_tool", content=content, error=not allowed)]

    def check_message(self, text: str) -> str | None:
        return None

    def resume(self, answers: dict[str, ApprovalAnswer] | None = None, *,
               approver: Approver | None = None) -> AsyncIterator[TurnEvent]:
        self.calls.append("resume")
        return self._resume(answers or {})

    async def _resume(self, answers: dict[str, ApprovalAnswer]) -> AsyncIterator[TurnEvent]:
        pending, self._pending = self._pending, []
        for request in pending:
            answer = answers.get(request.id, ApprovalAnswer("deny", "no answer"))
            allowed = answer.decision == "allow"
            yield ApprovalDecided(id=request.id, name=request.name,
                                  decision="approved" if allowed else "denied")
            yield ToolFinished(id=request.id, name=request.name, content=request.command,
                               error=not allowed)
        yield TurnDone(text="resumed")

    async def pending_approvals(self) -> list[ApprovalRequest]:
        return list(self._pending)

    def decided_answer(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        if self._mode == "auto":
            return ApprovalAnswer("allow")
        if self._mode == "read-only":
            return ApprovalAnswer("deny", "read-only mode")
        return None

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
        return [], []

    def forget_approvals(self) -> None:
        pass

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
        self._emit(StatusChanged())
        return text

    # -------------------------------------------------------------- sessions
    def session_rows(self) -> list[SessionRow]:
        return [SessionRow(id=s.id, title=s.title or "(untitled)", updated_at=STAMP,
                           turns=s.turns, input_tokens=s.tokens_in, output_tokens=s.tokens_out,
                           current=s.id == self._current, created_at=STAMP)
                for s in reversed(self._sessions.values()) if s.turns or s.id == self._current]

    async def session_pulse(self) -> SessionPulse:
        return SessionPulse()  # no other process shares an in-memory door

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
        return []

    async def restart_mcp(self, skill: str) -> McpRow:
        raise BirdieError(f"{skill!r} is not an MCP skill")

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
                          output=s.tokens_out, cost_usd=None)

    async def history(self, limit: int = 10) -> list[UserTurn]:
        users = [item.content for item in self.session.items if item.role == "user"]
        return [UserTurn(turn=n, text=text) for n, text in enumerate(users, 1)][-limit:]

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

    # -------------------------------------------------------------- what the model sees
    async def contexts(self) -> list[CallContext]:
        return []

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


def _pieces(text: str) -> list[str]:
    """The reply in word-sized tokens, spaces kept (joined, they are the reply)."""
    words = text.split(" ")
    return [word + " " for word in words[:-1]] + [words[-1]]


_checked: Birdie = FakeDoor()  # mypy: the fake satisfies the whole protocol
