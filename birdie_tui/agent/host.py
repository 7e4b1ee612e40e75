"""What every open session of the process shares: the agent, the stores, the history database
and the skills.

`AgentHost` holds the agent (`AgentParts`: provider, model, settings, skill registry, MCP
manager), the session and memory stores, the checkpoints with their saver and graph (opened in
`start`, closed in `aclose`), the skills' reload (`broken_skills`, the skill folders), the
approval mode (the app's, not a session's), and MCP status and restarts. Each open session is
an `Engine` over one host (`agent/engine.py`); the engine that built the host closes it.

One saver serves every open session: after each checkpoint it writes, the session that owns
the thread is told (`CheckpointListener.after_put`), so a turn left running in the background
counts and prunes its own history.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from langgraph.types import StateSnapshot

from birdie_tui.agent.approval_ops import ApprovalModeChoice
from birdie_tui.agent_files.registry import AgentRegistry
from birdie_tui.agent.builder import AgentParts
from birdie_tui.agent.options import EngineError, EngineOptions, default_skill_dirs
from birdie_tui.agent.sqlite_checkpoints import SqliteCheckpoints
from birdie_tui.mcp.manager import ServerStatus
from birdie_tui.skills.loader import load_skills
from birdie_tui.skills.models import LoadResult, Skill, SkillError
from birdie_tui.skills.reload import ReloadReport, merge_reload
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.store import BirdiePaths
from birdie_tui.store.database import (
    InvalidDatabaseUrl,
    open_memory_store,
    open_session_store,
    resolve_database_url,
)
from birdie_tui.store.paths import read_only_home
from birdie_tui.store.protocols import MemoryStoreProtocol, SessionStoreProtocol

# A LangGraph run or checkpoint config, and a checkpoint, as the saver passes them.
Config = Mapping[str, Any]
Checkpoint = Mapping[str, Any]


class AgentGraph(Protocol):
    """What the engine calls of the compiled agent graph (`agent.graph.build_graph`)."""

    async def aget_state(self, config: Config) -> StateSnapshot: ...
    async def aupdate_state(self, config: Config, values: dict[str, Any],
                            as_node: str | None = None) -> Config: ...
    def astream(self, input: Any, config: Config, *, context: Any,
                stream_mode: list[str], durability: str) -> AsyncIterator[Any]: ...


class Checkpoints(Protocol):
    """The history database (`agent/sqlite_checkpoints.py`, `agent/pg_checkpoints.py`)."""

    saver: Any  # LangGraph's checkpointer (sqlite or Postgres)

    async def head(self, thread_id: str) -> str | None: ...
    async def prune(self, thread_id: str, head: str) -> None: ...
    async def discard(self) -> None: ...
    async def no_interrupt_written(self, thread_id: str) -> bool: ...
    async def aclose(self) -> None: ...


class CheckpointListener(Protocol):
    """An open session's history, told of each checkpoint written on its thread."""

    def owns(self, thread_id: str) -> bool: ...
    async def after_put(self, config: Config, checkpoint: Checkpoint, saved: Config) -> None: ...


def tell_stderr(message: str) -> None:
    print(f"birdie-tui: {message}", file=sys.stderr, flush=True)


class AgentHost:
    def __init__(self, options: EngineOptions):
        self.options = options
        # Provider, settings, skills, MCP servers, model and graph: put together by the
        # builder every front end shares; the stores below are this host's own.
        self.agent = AgentParts(options)
        # Unset: the embedded store under BIRDIE_HOME; postgresql://...: a shared database.
        try:
            self.database_url = resolve_database_url(options.database_url, options.environ,
                                                     self.paths)
        except InvalidDatabaseUrl as exc:
            raise EngineError(str(exc)) from None
        self.sessions: SessionStoreProtocol
        try:
            self.sessions = open_session_store(self.paths, self.user, self.database_url)
            self.memory: MemoryStoreProtocol = open_memory_store(self.paths, self.user,
                                                                 self.database_url)
        except ConnectionError as exc:  # the database is unreachable, or newer than this code
            if hasattr(self, "sessions"):
                self.sessions.close()
            raise EngineError(str(exc)) from None
        self.broken_skills: dict[str, SkillError] = {}  # name -> error; last good version kept
        self.approval_mode = ApprovalModeChoice(lambda: self.agent.settings)
        # Told once when a turn has to wait for another process (the TUI may show it instead).
        self.on_wait: Callable[[str], None] = tell_stderr
        self.prune_checkpoints = True  # bench/storage.py turns it off to measure the difference
        self._checkpoints: Checkpoints | None = None
        self._graph: AgentGraph | None = None
        self._listeners: list[CheckpointListener] = []  # one per open session, oldest first

    @property
    def paths(self) -> BirdiePaths:
        return self.agent.paths

    @property
    def user(self) -> str:
        return self.agent.user

    @property
    def registry(self) -> SkillRegistry:
        return self.agent.registry

    @property
    def agents(self) -> AgentRegistry:
        return self.agent.agents

    @property
    def graph(self) -> AgentGraph:
        if self._graph is None:
            raise EngineError("the engine is not started")
        return self._graph

    @property
    def checkpoints(self) -> Checkpoints:
        if self._checkpoints is None:
            raise EngineError("the engine is not started")
        return self._checkpoints

    @property
    def saver(self) -> Any:
        return self.checkpoints.saver

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Load skills and the model, open the history database. A damaged database is moved
        aside (announced on the recovery bus) and replaced by an empty one; a database that
        cannot be opened at all raises EngineError. Nothing is left running on failure."""
        self.reload_skills()
        # The vendor SDK import costs 1-2 s: off the event loop, so a TUI stays responsive.
        await self.agent.load_model()
        self._checkpoints = await self._open_checkpoints()
        self._graph = self.agent.graph(self._checkpoints.saver)
        self._watch_checkpoints()

    async def _open_checkpoints(self) -> Checkpoints:
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
        self.sessions.close()  # the Postgres stores' connections (a no-op for files)
        self.memory.close()

    # ----------------------------------------------------------------- checkpoints
    def attach(self, listener: CheckpointListener) -> None:
        """An open session's history joins: it is told of its thread's checkpoints."""
        self._listeners.append(listener)

    def detach(self, listener: CheckpointListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def attached(self) -> tuple[CheckpointListener, ...]:
        return tuple(self._listeners)

    def _watch_checkpoints(self) -> None:
        """Tell the owning session after each checkpoint the saver writes (graph steps,
        repairs, retries, compaction: all go through `aput`)."""
        saver = self.saver
        put = saver.aput

        async def aput(config: Config, checkpoint: Checkpoint, metadata: Any, versions: Any) -> Any:
            try:
                saved = await put(config, checkpoint, metadata, versions)
            except BaseException:
                await self.checkpoints.discard()  # nothing of a failed write stays visible
                raise
            thread = config.get("configurable", {}).get("thread_id")
            owner = next((h for h in self._listeners if h.owns(thread)), None)
            if owner is not None:
                await owner.after_put(config, checkpoint, saved)
            return saved

        saver.aput = aput

    async def no_interrupt_written(self, thread_id: str) -> bool:
        """True when the thread's latest checkpoint surely has no interrupt pending (one
        indexed query); False when it may, or cannot be told (not started)."""
        if self._checkpoints is None:
            return False
        return bool(await self._checkpoints.no_interrupt_written(thread_id))

    async def prune(self, thread_id: str, head: str) -> None:
        """Drop the thread's checkpoints older than `head` (best effort: never fails a turn)."""
        if self.prune_checkpoints:
            await self.checkpoints.prune(thread_id, head)

    # ----------------------------------------------------------------- skills
    def skills(self) -> list[Skill]:
        return self.registry.skills()

    def reload_skills(self, touched: Iterable[Path] = ()) -> ReloadReport:
        """Rescan the skills directories now. A skill whose file broke keeps its last good
        version (listed in `broken_skills`); session grants are by name, so they survive."""
        self.refresh_skill_dirs()
        self.agent.reload_agents()  # agent files follow the same reloads
        return self._install(load_skills(self.agent.skill_dirs), touched)

    async def reload_skills_async(self, touched: Iterable[Path] = ()) -> ReloadReport:
        """The live-reload path: files are parsed off the event loop, the registry is swapped
        on it (a model call already under way keeps the tools it was given), and the MCP
        server of a changed or removed skill stops (a changed one restarts on next use)."""
        self.refresh_skill_dirs()
        result = await asyncio.to_thread(load_skills, self.agent.skill_dirs)
        await asyncio.to_thread(self.agent.reload_agents)
        report = self._install(result, touched)
        for skill in (*report.changed, *report.removed):
            if skill.mcp_server is not None:
                await self.agent.mcp.forget(skill.name)
        return report

    def refresh_skill_dirs(self) -> bool:
        """Recompute the default folders (unless `--skills-dir` chose them): a
        `$BIRDIE_HOME/skills` made after start joins, a removed one leaves. Folders added
        since (`/skill new`) stay. True when the list changed."""
        if self.options.skills_dirs:
            return False
        defaults = default_skill_dirs(self.paths, self.options.environ)
        user_dir = self.paths.user_skills_dir
        current = self.agent.skill_dirs
        extra = [d for d in current if d not in defaults and d != user_dir]
        fresh = [*defaults, *extra]
        changed, self.agent.skill_dirs = fresh != current, fresh
        return changed

    def watched_skill_dirs(self) -> list[Path]:
        """What live reload follows: the skill folders, plus `$BIRDIE_HOME/skills` while it
        does not exist yet (the watcher waits for it to appear)."""
        dirs = list(self.agent.skill_dirs)
        user_dir = self.paths.user_skills_dir
        env_override = self.options.environ.get("BIRDIE_SKILLS_DIR", "").strip()
        if not self.options.skills_dirs and not env_override and user_dir not in dirs:
            dirs.append(user_dir)
        # Agent folders too (not the package's own): an AGENT.MD saved is read again like a
        # SKILL.MD.
        dirs += [folder for folder, source in self.agent.agent_dirs
                 if source != "bundled" and folder.is_dir() and folder not in dirs]
        return dirs

    def _install(self, result: LoadResult, touched: Iterable[Path]) -> ReloadReport:
        merged, report = merge_reload(
            self.registry.skills(), result, previously_broken=self.broken_skills,
            previous_errors=self.registry.errors, touched=touched)
        self.registry.replace(merged)
        self.broken_skills.clear()  # in place: every open session reads the same dict
        self.broken_skills.update(report.broken)
        return report

    # ----------------------------------------------------------------- MCP servers
    def mcp_status(self, is_enabled: Callable[[Skill], bool]) -> list[ServerStatus]:
        """Each MCP skill's server: not started / starting / running (tools) / failed (reason)
        / exited (restarts on next use)."""
        return self.agent.mcp.status(self.skills(), is_enabled)

    async def restart_mcp(self, name: str, is_enabled: Callable[[Skill], bool]
                          ) -> ServerStatus:
        skill = self.registry.get(name)
        if skill is None or skill.mcp_server is None:
            raise EngineError(f"no MCP skill {name!r}; /mcp lists them")
        await self.agent.mcp.restart(skill)
        return next(s for s in self.mcp_status(is_enabled) if s.skill == skill.name)

    # ----------------------------------------------------------------- the model
    async def switch_model(self, vendor: str | None, model: str | None = None) -> str:
        """Use another vendor/model from now on, for every open session (histories are
        kept); returns the new label. Raises ConfigError (one line) when that vendor has no
        key."""
        from birdie_tui.providers.selection import config_for

        current = self.agent.provider
        config = config_for(vendor or current.vendor, model, current=current,
                            environ=self.options.environ, config_file=self.options.config_file)
        await self.agent.switch_model(config)
        return self.agent.model_label


__all__ = ["AgentGraph", "AgentHost", "Checkpoint", "CheckpointListener", "Checkpoints", "Config",
           "tell_stderr"]
