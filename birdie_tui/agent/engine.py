"""The engine: skills, the model, the checkpointer, and one user turn at a time.

Its agent (provider, model, settings, skills, MCP servers, graph) comes from the builder every
front end shares (`agent/builder.py`). It owns the current session and its policy, the stores
and the checkpointer, and two collaborators with their own state: `tokens` (`TokenAccount`,
the one owner of token accounting) and `approvals` (`ApprovalDesk`, the one place approvals
are decided). It runs one user turn as an async stream of typed events (`run_turn`). Front
ends do not hold it: they talk to `birdie_tui.service`, which wraps it. Session operations
live in `session_ops.py`, one turn in `turn_ops.py` (mixins still).

A new session is lazy: `open_session(None)` gives an unsaved session (`session_saved` False)
with a provisional id; nothing reaches the disk until its first turn runs (`persist_session`),
so starting and quitting leaves no empty session behind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from birdie_tui.agent.approval_ops import ApprovalDesk
from birdie_tui.agent.approvals import ApprovalRequest
from birdie_tui.agent.compact_ops import CompactOps
from birdie_tui.agent.builder import AgentParts
from birdie_tui.agent.accounting import TokenAccount
from birdie_tui.agent.ledger import Ledger, TokenLedger
from birdie_tui.agent.session_guard import SessionGuard
from birdie_tui.agent.session_ops import INTERRUPTED_MARK, SessionOps
from birdie_tui.agent.sqlite_checkpoints import SqliteCheckpoints
from birdie_tui.agent.turn_ops import TurnOps
from birdie_tui.agent.options import (
    EngineError,
    EngineOptions,
    default_skill_dirs,
)
from birdie_tui.mcp.manager import ServerStatus
from birdie_tui.modes import ApprovalMode
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills.loader import load_skills
from birdie_tui.skills.models import LoadResult, Skill, SkillError
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.reload import ReloadReport, merge_reload
from birdie_tui.store import BirdiePaths, SessionMeta
from birdie_tui.store.database import (
    InvalidDatabaseUrl,
    open_memory_store,
    open_session_store,
    resolve_database_url,
)
from birdie_tui.store.paths import read_only_home
from birdie_tui.store.settings import Settings

__all__ = ["INTERRUPTED_MARK", "Engine", "EngineError", "EngineOptions", "default_skill_dirs"]

class Engine(TurnOps, SessionOps, CompactOps, SessionGuard):
    def __init__(self, options: EngineOptions | None = None):
        self.options = options or EngineOptions()
        env = self.options.environ
        # Provider, settings, skills, MCP servers, model and graph: put together by the
        # builder every front end shares; the stores below are this engine's own.
        self.agent = AgentParts(self.options)
        # Unset: the embedded store under BIRDIE_HOME; postgresql://...: a shared database.
        try:
            self.database_url = resolve_database_url(self.options.database_url, env, self.paths)
        except InvalidDatabaseUrl as exc:
            raise EngineError(str(exc)) from None
        try:
            self.sessions = open_session_store(self.paths, self.user, self.database_url)
            self.memory = open_memory_store(self.paths, self.user, self.database_url)
        except ConnectionError as exc:  # the database is unreachable, or newer than this code
            close = getattr(getattr(self, "sessions", None), "close", None)
            if close is not None:
                close()
            raise EngineError(str(exc)) from None
        self.last_call = None  # the latest model call's provenance (auto-compaction reads it)
        self.broken_skills: dict[str, SkillError] = {}  # name -> error; last good version kept
        self.policy = SkillPolicy()
        self.session: SessionMeta | None = None
        # The one owner of token counts and cost: the running turn's and the session file's.
        self.tokens = TokenAccount(self.sessions, self)
        self.toolbox = self.agent.toolbox(lambda: self.policy)
        # The one place approvals are decided: mode, rules, remembered answers, pending steps.
        self.approvals = ApprovalDesk(settings=lambda: self.settings, session=lambda: self.session,
                                      sessions=self.sessions, history=self)
        self._graph: Any = None
        self.needs_repair = True  # see SessionOps: the open history may need a repair
        self._saver: Any = None
        self._checkpoints: Any = None  # SqliteCheckpoints or PgCheckpoints

    # ----------------------------------------------------------------- the built parts
    paths = property(lambda self: self.agent.paths)
    user = property(lambda self: self.agent.user)
    registry = property(lambda self: self.agent.registry)
    mcp = property(lambda self: self.agent.mcp)
    model_label = property(lambda self: self.agent.model_label)
    context_window = property(lambda self: self.agent.context_window)
    price = property(lambda self: self.agent.price)

    @property
    def ledger(self) -> Ledger:  # the running turn's calls (`tokens` owns it)
        return self.tokens.ledger

    @property
    def provider(self) -> ProviderConfig:
        return self.agent.provider

    @property
    def model(self) -> Any:
        return self.agent.model

    @model.setter
    def model(self, model: Any) -> None:  # tests and benchmarks put a scripted model in
        self.agent.model = model

    @property
    def settings(self) -> Settings:
        return self.agent.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.agent.settings = settings

    @property
    def skill_dirs(self) -> list[Path]:
        return self.agent.skill_dirs

    @skill_dirs.setter
    def skill_dirs(self, dirs: list[Path]) -> None:
        self.agent.skill_dirs = dirs

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Load skills and the model, open the history database. A damaged database is moved
        aside (announced on the recovery bus) and replaced by an empty one; a database that
        cannot be opened at all raises EngineError. Nothing is left running on failure."""
        self.reload_skills()
        # The vendor SDK import costs 1-2 s: off the event loop, so a TUI stays responsive.
        await self.agent.load_model()
        self._checkpoints = await self._open_checkpoints()
        self._saver = self._checkpoints.saver
        self._graph = self.agent.graph(self._saver)
        self._watch_checkpoints()  # see SessionGuard: prune and count after each checkpoint

    async def _open_checkpoints(self) -> Any:
        if self.database_url:
            from birdie_tui.agent.pg_checkpoints import open_pg_checkpoints
            from birdie_tui.store.pg.connect import DatabaseUnavailable

            try:
                return await open_pg_checkpoints(self.database_url)
            except DatabaseUnavailable as exc:
                raise EngineError(str(exc)) from exc
        if problem := read_only_home(self.paths, self.user):
            raise EngineError(problem)
        self.paths.ensure_user_dir(self.user)
        return await SqliteCheckpoints.open(self.paths.checkpoints_db(self.user),
                                            logs_dir=self.paths.logs_dir)

    async def aclose(self) -> None:
        await self.agent.aclose()  # the model's client and the MCP servers
        if self._checkpoints is not None:
            checkpoints, self._checkpoints = self._checkpoints, None
            await checkpoints.aclose()
        close_store = getattr(self.sessions, "close", None)  # the Postgres store's connections
        if close_store is not None:
            close_store()
        close_memory = getattr(self.memory, "close", None)
        if close_memory is not None:
            close_memory()

    # ----------------------------------------------------------------- approvals
    @property
    def approval_mode(self) -> ApprovalMode:
        return self.approvals.mode

    def set_approval_mode(self, mode: str) -> ApprovalMode:
        return self.approvals.set_mode(mode)

    async def pending_approvals(self, session_id: str | None = None) -> list[ApprovalRequest]:
        return await self.approvals.pending(session_id)

    # What the approval desk reads and writes of the history (its `SessionHistory`).
    async def step_state(self, session_id: str | None = None) -> Any:
        return await self._graph.aget_state(self._config(session_id))

    async def close_step(self, results: list[Any]) -> None:
        await self._graph.aupdate_state(self._config(), {"messages": results}, as_node="tools")

    async def no_interrupt_written(self, session_id: str) -> bool:
        """True when the thread's latest checkpoint surely has no interrupt pending (one
        indexed query); False when it may, or cannot be told."""
        if self._checkpoints is None:
            return False
        return bool(await self._checkpoints.no_interrupt_written(session_id))

    def mcp_status(self) -> list[ServerStatus]:
        """Each MCP skill's server: not started / starting / running (tools) / failed (reason)
        / exited (restarts on next use)."""
        return self.mcp.status(self.skills(), self.is_enabled)

    async def restart_mcp(self, name: str) -> ServerStatus:
        skill = self.registry.get(name)
        if skill is None or skill.mcp_server is None:
            raise EngineError(f"no MCP skill {name!r}; /mcp lists them")
        await self.mcp.restart(skill)
        return next(s for s in self.mcp_status() if s.skill == skill.name)

    # ----------------------------------------------------------------- provider
    # (model_label, context_window, price: ProviderFacts)
    def token_ledger(self) -> TokenLedger:
        return self.tokens.snapshot(self.session)

    async def switch_model(self, vendor: str | None, model: str | None = None) -> str:
        """Use another vendor/model for the rest of this session (history is kept); returns
        the new label. Raises ConfigError (one line) when that vendor has no key."""
        from birdie_tui.providers.selection import config_for

        config = config_for(vendor or self.provider.vendor, model, current=self.provider,
                            environ=self.options.environ, config_file=self.options.config_file)
        await self.agent.switch_model(config)
        return self.model_label

    # ----------------------------------------------------------------- skills
    def reload_skills(self, touched: Iterable[Path] = ()) -> ReloadReport:
        """Rescan the skills directories now. A skill whose file broke keeps its last good
        version (listed in `broken_skills`); session grants are by name, so they survive."""
        self.refresh_skill_dirs()
        return self._install(load_skills(self.skill_dirs), touched)

    async def reload_skills_async(self, touched: Iterable[Path] = ()) -> ReloadReport:
        """The live-reload path: files are parsed off the event loop, the registry is swapped
        on it (a model call already under way keeps the tools it was given), and the MCP
        server of a changed or removed skill stops (a changed one restarts on next use)."""
        self.refresh_skill_dirs()
        result = await asyncio.to_thread(load_skills, self.skill_dirs)
        report = self._install(result, touched)
        for skill in (*report.changed, *report.removed):
            if skill.mcp_server is not None:
                await self.mcp.forget(skill.name)
        return report

    def refresh_skill_dirs(self) -> bool:
        """Recompute the default folders (unless `--skills-dir` chose them): a
        `$BIRDIE_HOME/skills` made after start joins, a removed one leaves. Folders added
        since (`/skill new`) stay. True when the list changed."""
        if self.options.skills_dirs:
            return False
        defaults = default_skill_dirs(self.paths, self.options.environ)
        user_dir = self.paths.user_skills_dir
        extra = [d for d in self.skill_dirs if d not in defaults and d != user_dir]
        fresh = [*defaults, *extra]
        changed, self.skill_dirs = fresh != self.skill_dirs, fresh
        return changed

    def watched_skill_dirs(self) -> list[Path]:
        """What live reload follows: the skill folders, plus `$BIRDIE_HOME/skills` while it
        does not exist yet (the watcher waits for it to appear)."""
        dirs = list(self.skill_dirs)
        user_dir = self.paths.user_skills_dir
        env_override = self.options.environ.get("BIRDIE_SKILLS_DIR", "").strip()
        if not self.options.skills_dirs and not env_override and user_dir not in dirs:
            dirs.append(user_dir)
        return dirs

    def _install(self, result: LoadResult, touched: Iterable[Path]) -> ReloadReport:
        merged, report = merge_reload(
            self.registry.skills(), result, previously_broken=self.broken_skills,
            previous_errors=self.registry.errors, touched=touched)
        self.registry.replace(merged)
        self.broken_skills = dict(report.broken)
        return report

    def skills(self) -> list[Skill]:
        return self.registry.skills()

    def is_enabled(self, skill: Skill) -> bool:
        return self.policy.is_enabled(skill)

    def set_skill_enabled(self, name: str, enabled: bool) -> Skill:
        skill = self.registry.get(name)
        if skill is None:
            raise EngineError(f"unknown skill {name!r}; /skill list shows the loaded ones")
        (self.policy.enable if enabled else self.policy.disable)(skill.name)
        self._persist_grants()
        return skill

    def _persist_grants(self) -> None:
        """Grants of an unsaved session stay in memory until `persist_session` writes them."""
        if self.session is not None:
            self.session.enabled_skills = self.policy.enabled_names
            self.session.disabled_skills = self.policy.disabled_names
            if self.session.saved:
                self.sessions.save(self.session)
