"""The engine: one open session's handle on the agent, running one user turn at a time.

What every open session of the process shares is the `AgentHost` (`agent/host.py`): the agent
built by `agent/builder.py` (provider, model, settings, skills, MCP servers), the stores, the
history database and its graph, and the approval mode. An `Engine` is one open session over a
host, made of collaborators with their own state:

- `state` (`SessionState`): the open session, its skill grants, its latest model call;
- `history` (`SessionHistory`): its checkpointed history, the turn lock, counting after each
  checkpoint, repair;
- `book` (`SessionBook`): open / new / switch / list / rename / delete, grants, `/retry`;
- `rewinder` (`Rewinder`): rewind to before a user message, fork a session from one;
- `tokens` (`TokenAccount`): the one owner of token accounting;
- `approvals` (`ApprovalDesk`): the one place approvals are decided;
- `compactor` (`Compactor`): `/compact`, auto-compaction, prompt settings, provenance;
- `turns` (`TurnLoop`): one turn as an async stream of typed events (`run_turn`).

`Engine(options)` builds its own host and is the one that closes it (`aclose`);
`session_view()` gives another `Engine` on the same host, for another session to run side by
side (`service/local/desk.py`). The methods below are the core's API for the door
(`service/local/`) and the tests: one-line forwards to the collaborator that owns each.
Front ends do not hold an engine: they talk to `birdie_tui.service`, which wraps it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from birdie_tui.agent.accounting import TokenAccount
from birdie_tui.agent.approval_ops import ApprovalDesk
from birdie_tui.agent.approvals import ApprovalAnswer, ApprovalRequest
from birdie_tui.agent.builder import AgentParts
from birdie_tui.agent.compactor import Compaction, Compactor
from birdie_tui.agent.graph import Approver
from birdie_tui.agent.host import AgentHost
from birdie_tui.agent.ledger import Ledger, Price, TokenLedger
from birdie_tui.agent.options import EngineError, EngineOptions, default_skill_dirs
from birdie_tui.agent.provenance import CallContext
from birdie_tui.agent.rewind import Rewinder
from birdie_tui.agent.session_book import SessionBook
from birdie_tui.agent.shell_line import ShellLine, run_shell_line
from birdie_tui.agent.session_history import INTERRUPTED_MARK, SessionHistory
from birdie_tui.agent.session_state import SessionState
from birdie_tui.agent.turn_loop import TurnLoop, TurnParts
from birdie_tui.events import SessionOpened, TurnEvent
from birdie_tui.mcp.given import GivenServer
from birdie_tui.mcp.manager import MCPManager, ServerStatus
from birdie_tui.modes import ApprovalMode
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills.models import Skill, SkillError
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.skills.reload import ReloadReport
from birdie_tui.store import BirdiePaths, SessionMeta
from birdie_tui.store.protocols import MemoryStoreProtocol, SessionStoreProtocol
from birdie_tui.store.settings import Settings
from birdie_tui.workspace import Workspace

__all__ = ["INTERRUPTED_MARK", "Engine", "EngineError", "EngineOptions", "default_skill_dirs"]


class Engine:
    def __init__(self, options: EngineOptions | None = None, *, host: AgentHost | None = None):
        self._owns_host = host is None  # only the engine that built the host closes it
        self.host = host or AgentHost(options or EngineOptions())
        self.state = SessionState()
        self.tokens = TokenAccount(self.host.sessions, self)
        self.history = SessionHistory(self.state, self.host, self.tokens)
        self.approvals = ApprovalDesk(
            mode=self.host.approval_mode, settings=lambda: self.settings,
            session=lambda: self.state.session, sessions=self.host.sessions,
            history=self.history)
        self.toolbox = self.host.agent.toolbox(lambda: self.state.policy, self._session_id)
        self.book = SessionBook(self.state, self.host, self.history, self.tokens)
        self.rewinder = Rewinder(self.state, self.host, self.history, self.tokens)
        self.compactor = Compactor(self.state, self.host, self.history, self.approvals,
                                   self.tokens, facts=self)
        self.turns = TurnLoop(TurnParts(
            state=self.state, host=self.host, book=self.book, history=self.history,
            approvals=self.approvals, tokens=self.tokens, compactor=self.compactor,
            toolbox=self.toolbox, facts=self))
        self.host.attach(self.history)  # told of its session's checkpoints

    def session_view(self) -> Engine:
        """Another open session on the same host, no session open yet: the agent, stores,
        history database, graph and approval mode shared; the session, its grants, token
        account, approval answers and history bookkeeping its own. A turn runs on the engine
        it started on, so showing another session (a view of its own) leaves the turn
        running. Closing a view does not close the host; `drop_view` forgets one."""
        return Engine(host=self.host)

    def drop_view(self, view: Engine) -> None:
        """Forget a session view (its turn ended while another session was shown)."""
        self.host.detach(view.history)

    async def start(self) -> None:
        """Load skills and the model, open the history database (see `AgentHost.start`)."""
        await self.host.start()

    async def aclose(self) -> None:
        if self._owns_host:
            await self.host.aclose()
        else:
            self.host.detach(self.history)

    # ----------------------------------------------------------------- the shared parts
    @property
    def options(self) -> EngineOptions:
        return self.host.options

    @property
    def agent(self) -> AgentParts:
        return self.host.agent

    @property
    def database_url(self) -> str | None:
        return self.host.database_url

    @property
    def sessions(self) -> SessionStoreProtocol:
        return self.host.sessions

    @property
    def memory(self) -> MemoryStoreProtocol:
        return self.host.memory

    @property
    def paths(self) -> BirdiePaths:
        return self.host.paths

    @property
    def user(self) -> str:
        return self.host.user

    @property
    def registry(self) -> SkillRegistry:
        return self.host.registry

    @property
    def broken_skills(self) -> dict[str, SkillError]:
        return self.host.broken_skills

    @property
    def mcp(self) -> MCPManager:
        return self.host.agent.mcp

    @property
    def provider(self) -> ProviderConfig:
        return self.host.agent.provider

    @property
    def model_label(self) -> str:
        return self.host.agent.model_label

    @property
    def context_window(self) -> int | None:
        return self.host.agent.context_window

    @property
    def price(self) -> Price | None:
        return self.host.agent.price

    @property
    def model(self) -> Any:
        return self.host.agent.model

    @model.setter
    def model(self, model: Any) -> None:  # tests and benchmarks put a scripted model in
        self.host.agent.model = model

    @property
    def settings(self) -> Settings:
        return self.host.agent.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.host.agent.settings = settings

    @property
    def skill_dirs(self) -> list[Path]:
        return self.host.agent.skill_dirs

    @skill_dirs.setter
    def skill_dirs(self, dirs: list[Path]) -> None:
        self.host.agent.skill_dirs = dirs

    @property
    def on_wait(self) -> Callable[[str], None]:
        """Told once when a turn has to wait for another process (the TUI may show it)."""
        return self.host.on_wait

    @on_wait.setter
    def on_wait(self, tell: Callable[[str], None]) -> None:
        self.host.on_wait = tell

    @property
    def prune_checkpoints(self) -> bool:
        return self.host.prune_checkpoints

    @prune_checkpoints.setter
    def prune_checkpoints(self, prune: bool) -> None:
        self.host.prune_checkpoints = prune

    # ----------------------------------------------------------------- this session
    @property
    def session(self) -> SessionMeta | None:
        return self.state.session

    @property
    def policy(self) -> SkillPolicy:
        return self.state.policy

    @property
    def last_call(self) -> CallContext | None:
        return self.state.last_call

    @property
    def session_saved(self) -> bool:
        return self.state.saved

    def require_session(self) -> SessionMeta:
        return self.state.require()

    @property
    def ledger(self) -> Ledger:  # the running turn's calls (`tokens` owns it)
        return self.tokens.ledger

    def token_ledger(self) -> TokenLedger:
        return self.tokens.snapshot(self.state.session)

    # ----------------------------------------------------------------- a turn
    def run_turn(self, text: str, *, approver: Approver | None = None,
                 resume: dict[str, ApprovalAnswer] | None = None,
                 workspace: Workspace | None = None
                 ) -> AsyncGenerator[TurnEvent, None]:
        return self.turns.run_turn(text, approver=approver, resume=resume, workspace=workspace)

    # ----------------------------------------------------------------- sessions (book)
    async def open_session(self, session_id: str | None = None, *, enable: Iterable[str] = (),
                           disable: Iterable[str] = ()) -> SessionOpened:
        return await self.book.open_session(session_id, enable=enable, disable=disable)

    async def new_session(self) -> SessionMeta:
        return await self.book.new_session()

    async def switch_session(self, session_id: str) -> SessionMeta:
        return await self.book.switch_session(session_id)

    def list_sessions(self) -> list[SessionMeta]:
        return self.book.list_sessions()

    def rename_session(self, session_id: str, title: str) -> SessionMeta:
        return self.book.rename_session(session_id, title)

    async def delete_session(self, session_id: str) -> SessionMeta | None:
        return await self.book.delete_session(session_id)

    async def take_last_turn(self) -> str:
        return await self.book.take_last_turn()

    async def rewind(self, number: int | None = None) -> str:
        return await self.rewinder.rewind(number)

    async def fork(self, number: int | None = None) -> SessionMeta:
        return await self.rewinder.fork(number)

    async def rewound(self, session_id: str | None = None) -> dict[str, Any]:
        return await self.rewinder.rewound(session_id)

    def persist_session(self) -> SessionMeta:
        return self.book.persist_session()

    def latest_session_id(self) -> str | None:
        return self.book.latest_session_id()

    def set_skill_enabled(self, name: str, enabled: bool) -> Skill:
        return self.book.set_skill_enabled(name, enabled)

    def is_enabled(self, skill: Skill) -> bool:
        return self.state.policy.is_enabled(skill)

    # ----------------------------------------------------------------- history
    async def messages(self, session_id: str | None = None) -> list[BaseMessage]:
        return await self.history.messages(session_id)

    async def history_head(self) -> tuple[str | None, bool]:
        return await self.history.history_head()

    # ----------------------------------------------------------------- compaction
    async def compact(self, instructions: str = "", *, auto: bool = False) -> Compaction | None:
        return await self.compactor.compact(instructions, auto=auto)

    async def auto_compact(self) -> Compaction | None:
        return await self.compactor.auto_compact()

    async def run_shell(self, command: str) -> ShellLine:
        """A command the user typed (`!command`): run now, under the session's rules."""
        return await run_shell_line(command, policy=self.approvals.policy(),
                                    timeout=self.host.options.tool_timeout,
                                    max_call_timeout=self.settings.tool_max_timeout)

    async def contexts(self, session_id: str | None = None) -> list[CallContext]:
        return await self.compactor.contexts(session_id)

    async def rolling_summary(self, session_id: str | None = None) -> str:
        return await self.compactor.rolling_summary(session_id)

    def prompt_setting(self, name: str) -> Any:
        return self.compactor.prompt_setting(name)

    def set_prompt_setting(self, name: str, value: Any) -> None:
        self.compactor.set_prompt_setting(name, value)

    def message_problem(self, text: str) -> str | None:
        return self.compactor.message_problem(text)

    # ----------------------------------------------------------------- approvals
    @property
    def approval_mode(self) -> ApprovalMode:
        return self.approvals.mode

    def set_approval_mode(self, mode: str) -> ApprovalMode:
        return self.approvals.set_mode(mode)

    async def pending_approvals(self, session_id: str | None = None) -> list[ApprovalRequest]:
        return await self.approvals.pending(session_id)

    # ----------------------------------------------------------------- skills, MCP, model
    def skills(self) -> list[Skill]:
        return self.host.skills()

    def reload_skills(self, touched: Iterable[Path] = ()) -> ReloadReport:
        return self.host.reload_skills(touched)

    async def reload_skills_async(self, touched: Iterable[Path] = ()) -> ReloadReport:
        return await self.host.reload_skills_async(touched)

    def watched_skill_dirs(self) -> list[Path]:
        return self.host.watched_skill_dirs()

    def mcp_status(self) -> list[ServerStatus]:
        given = self.agent.given.of(self._session_id())
        return [*self.host.mcp_status(self.is_enabled), *(given.status() if given else ())]

    async def restart_mcp(self, name: str) -> ServerStatus:
        given = self.agent.given.of(self._session_id())
        skill = given.find(name) if given is not None else None
        if given is not None and skill is not None:
            return await given.restart(skill)
        return await self.host.restart_mcp(name, self.is_enabled)

    async def attach_mcp(self, servers: Sequence[GivenServer], *,
                         start: bool = True) -> list[ServerStatus]:
        """Give the open session exactly `servers` (see `mcp/given.py`); their rows. Raises
        EngineError, nothing changed, for a server that cannot be used."""
        session = self.state.require()
        try:
            given = await self.agent.given.attach(session.id, servers, workdir=_workdir(),
                                                  start=start)
        except ValueError as exc:
            raise EngineError(str(exc)) from None
        return given.status() if given is not None else []

    def _session_id(self) -> str | None:
        return self.state.session.id if self.state.session is not None else None

    async def switch_model(self, vendor: str | None, model: str | None = None) -> str:
        return await self.host.switch_model(vendor, model)


def _workdir() -> Path:
    """Where a given server's relative command is looked for: where tools run."""
    try:
        return Path(os.getcwd())
    except OSError:  # the folder was removed under us: a relative command fails to spawn
        return Path.home()
