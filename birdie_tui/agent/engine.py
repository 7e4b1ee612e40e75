"""The engine: the small service API every front end (TUI, `--print`) talks to.

It owns the skill registry, the current session and its policy, the checkpointer and the
model, and runs one user turn as an async stream of typed events (`run_turn`).

A new session is lazy: `open_session(None)` gives an unsaved session (`session_saved` False)
with a provisional id; nothing reaches the disk until its first turn runs (`persist_session`),
so starting and quitting leaves no empty session behind.
"""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from birdie_tui.agent.accounting import record_turn, take_back_turn, usage_after
from birdie_tui.agent.checkpointer import open_checkpointer
from birdie_tui.agent.events import SessionOpened, TurnDone, TurnError, TurnEvent, UsageReported
from birdie_tui.agent.graph import AgentContext, Approver, build_graph, replace_all
from birdie_tui.agent.history import repair_history
from birdie_tui.agent.options import (
    EngineError,
    EngineOptions,
    default_skill_dirs,
    mcp_start_timeout,
)
from birdie_tui.agent.stream import final_reply, translate
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.mcp.manager import MCPManager, ServerStatus
from birdie_tui.providers.catalog import context_window
from birdie_tui.providers.config import resolve_provider_config
from birdie_tui.providers.factory import create_chat_model, describe, load_adapter
from birdie_tui.skills.loader import load_skills
from birdie_tui.skills.models import LoadResult, Skill, SkillError
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.skills.reload import ReloadReport, merge_reload
from birdie_tui.store import BirdiePaths, MemoryStore, SessionMeta, SessionStore
from birdie_tui.store.paths import default_user, validate_session_id, validate_user
from birdie_tui.text import content_text, one_line

__all__ = ["INTERRUPTED_MARK", "Engine", "EngineError", "EngineOptions", "default_skill_dirs"]

INTERRUPTED_MARK = "*[interrupted]*"


class Engine:
    def __init__(self, options: EngineOptions | None = None):
        self.options = options or EngineOptions()
        env = self.options.environ
        self.paths = self.options.paths or BirdiePaths.from_env(env)
        self.user = validate_user(self.options.user or default_user(env))
        self.skill_dirs = self.options.skills_dirs or default_skill_dirs(self.paths, env)
        self.provider = self.options.provider or resolve_provider_config(
            env, self.options.config_file
        )
        self.sessions = SessionStore(self.paths, self.user)
        self.memory = MemoryStore(self.paths, self.user)
        self.registry = SkillRegistry(LoadResult())
        self.broken_skills: dict[str, SkillError] = {}  # name -> error; last good version kept
        self.policy = SkillPolicy()
        self.session: SessionMeta | None = None
        self.model: Any = None
        # MCP servers start lazily, on the first model call that needs their tools.
        self.mcp = MCPManager(self.paths.logs_dir, start_timeout=mcp_start_timeout(self.options),
                              call_timeout=self.options.tool_timeout, environ=env)
        self.toolbox = Toolbox(self.registry, lambda: self.policy,
                               tool_timeout=self.options.tool_timeout,
                               mcp_tools=self.mcp.tools_for)
        self._graph: Any = None
        self._saver: Any = None
        self._conn: Any = None

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Load skills and the model, open the history database. A damaged database is moved
        aside (announced on the recovery bus) and replaced by an empty one; a database that
        cannot be opened at all raises EngineError. Nothing is left running on failure."""
        self.reload_skills()
        # The vendor SDK import costs 1-2 s: off the event loop, so a TUI stays responsive.
        await asyncio.to_thread(load_adapter, self.provider.vendor)
        self.model = create_chat_model(self.provider)
        self.paths.ensure_user_dir(self.user)
        db = self.paths.checkpoints_db(self.user)
        try:
            self._conn, self._saver = await open_checkpointer(db, logs_dir=self.paths.logs_dir)
        except sqlite3.OperationalError as exc:  # locked, read-only, no permission: not damage
            raise EngineError(f"cannot open the history database {db}: {exc}") from exc
        self._graph = build_graph(self._saver)

    async def aclose(self) -> None:
        close_model = getattr(self.model, "aclose", None)  # vendor SDK clients
        try:
            if close_model is not None:
                await close_model()
        except Exception:  # noqa: BLE001 - closing must go on to the checkpointer
            pass
        await self.mcp.aclose()
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()

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
    @property
    def model_label(self) -> str:
        return describe(self.provider)

    @property
    def context_window(self) -> int | None:
        return context_window(self.provider.vendor, self.provider.model or "")

    async def switch_model(self, vendor: str | None, model: str | None = None) -> str:
        """Use another vendor/model for the rest of this session (history is kept); returns
        the new label. Raises ConfigError (one line) when that vendor has no key."""
        from birdie_tui.providers.selection import config_for

        config = config_for(vendor or self.provider.vendor, model, current=self.provider,
                            environ=self.options.environ, config_file=self.options.config_file)
        await asyncio.to_thread(load_adapter, config.vendor)
        self.model, self.provider = create_chat_model(config), config
        return self.model_label

    # ----------------------------------------------------------------- skills
    def reload_skills(self, touched: Iterable[Path] = ()) -> ReloadReport:
        """Rescan the skills directories now. A skill whose file broke keeps its last good
        version (listed in `broken_skills`); session grants are by name, so they survive."""
        return self._install(load_skills(self.skill_dirs), touched)

    async def reload_skills_async(self, touched: Iterable[Path] = ()) -> ReloadReport:
        """The live-reload path: files are parsed off the event loop, the registry is swapped
        on it (a model call already under way keeps the tools it was given), and the MCP
        server of a changed or removed skill stops (a changed one restarts on next use)."""
        result = await asyncio.to_thread(load_skills, self.skill_dirs)
        report = self._install(result, touched)
        for skill in (*report.changed, *report.removed):
            if skill.mcp_server is not None:
                await self.mcp.forget(skill.name)
        return report

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

    # ----------------------------------------------------------------- sessions
    def _config(self, session_id: str | None = None) -> dict[str, Any]:
        sid = session_id or self.require_session().id
        return {"configurable": {"thread_id": sid},
                "recursion_limit": self.options.max_tool_calls * 2 + 10}

    def require_session(self) -> SessionMeta:
        if self.session is None:
            raise EngineError("no session is open")
        return self.session

    @property
    def session_saved(self) -> bool:
        """False while the open session is new and unsaved (no file, no history yet)."""
        return self.session is not None and self.session.saved

    def persist_session(self) -> SessionMeta:
        """Write the open session if it is still unsaved, and return it. The file is created
        exclusively: if the provisional id was taken meanwhile, the next free one is used and
        `session.id` changes. run_turn calls this before anything touches the history."""
        meta = self.require_session()
        if not meta.saved:
            meta.enabled_skills = self.policy.enabled_names
            meta.disabled_skills = self.policy.disabled_names
            self.sessions.create(meta=meta)
        return meta

    def latest_session_id(self) -> str | None:
        """The user's most recent non-empty session (for `--continue`), or None."""
        meta = self.sessions.latest()
        return meta.id if meta is not None else None

    async def open_session(
        self,
        session_id: str | None = None,
        *,
        enable: Iterable[str] = (),
        disable: Iterable[str] = (),
    ) -> SessionOpened:
        """Continue `session_id`, or start a new, unsaved session; apply --enable/--disable
        grants. Raises EngineError (nothing created or switched) for an invalid or unknown
        session id, a corrupt session file (moved aside and announced), or an unknown skill."""
        enable, disable = list(enable), list(disable)
        for name in (*enable, *disable):  # before anything is created or switched
            if self.registry.get(name) is None:
                raise EngineError(f"unknown skill {name!r}; /skill list shows the loaded ones")
        if session_id:
            try:
                validate_session_id(session_id)
            except ValueError as exc:
                raise EngineError(str(exc)) from exc
            seen = len(self.sessions.warnings)
            meta = self.sessions.load(session_id)
            if meta is None and len(self.sessions.warnings) > seen:  # corrupt: moved aside
                raise EngineError(f"session {session_id!r} cannot be opened: its file was "
                                  "corrupt and has been moved aside")
            if meta is None:
                raise EngineError(f"session {session_id!r} not found for user {self.user!r}")
            new = False
        else:
            meta = self.sessions.provisional()
            new = True
        self._activate(meta)
        for name in enable:
            self.set_skill_enabled(name, True)
        for name in disable:
            self.set_skill_enabled(name, False)
        await self.repair_session()
        return SessionOpened(id=meta.id, new=new)

    def _activate(self, meta: SessionMeta) -> None:
        self.session = meta
        self.policy = SkillPolicy(meta.enabled_skills, meta.disabled_skills)

    async def new_session(self) -> SessionMeta:
        """Start a new (unsaved) session; an unsaved current one is simply kept."""
        current = self.session
        if current is not None and not current.saved:
            current.id = self.sessions.next_id()  # another process may have taken the old one
            return current
        await self.open_session()
        return self.require_session()

    async def switch_session(self, session_id: str) -> SessionMeta:
        await self.open_session(session_id)
        return self.require_session()

    def list_sessions(self) -> list[SessionMeta]:
        """Saved sessions, newest first, without empty ones (except the open session). An
        unsaved open session is not in the list."""
        keep = self.session.id if self.session is not None and self.session.saved else None
        return self.sessions.list(keep=keep)

    def rename_session(self, session_id: str, title: str) -> SessionMeta:
        """Set the title (blank clears it). An unsaved session keeps it in memory until saved."""
        meta = self.session if self.session and self.session.id == session_id else \
            self.sessions.load(session_id)
        if meta is None:
            raise EngineError(f"session {session_id!r} not found")
        meta.title = title.strip() or None
        if meta.saved:
            self.sessions.save(meta)
        return meta

    async def delete_session(self, session_id: str) -> SessionMeta | None:
        """Delete a session and its checkpoints (its id is never handed out again). Deleting
        the open one opens a new, unsaved one, which is returned; deleting the open unsaved
        session just starts afresh (nothing was on disk)."""
        current = self.session
        if current is not None and current.id == session_id and not current.saved:
            await self.open_session()
            return self.require_session()
        if not self.sessions.exists(session_id):
            raise EngineError(f"session {session_id!r} not found")
        await self._saver.adelete_thread(session_id)
        self.sessions.delete(session_id)
        if self.session is not None and self.session.id == session_id:
            return await self.new_session()
        return None

    async def messages(self, session_id: str | None = None) -> list[BaseMessage]:
        """The history of `session_id` (default: the open session; [] while it is unsaved)."""
        current = self.session
        if current is not None and not current.saved and session_id in (None, current.id):
            return []
        state = await self._graph.aget_state(self._config(session_id))
        return list(state.values.get("messages", [])) if state and state.values else []

    async def recompute_tokens(self, session_id: str | None = None) -> tuple[int, int]:
        """Session token totals from the checkpointed messages' usage_metadata."""
        total_in = total_out = 0
        for msg in await self.messages(session_id):
            usage = getattr(msg, "usage_metadata", None) or {}
            total_in += int(usage.get("input_tokens", 0) or 0)
            total_out += int(usage.get("output_tokens", 0) or 0)
        return total_in, total_out

    async def repair_session(self, partial_reply: str | None = None) -> bool:
        """Make the open session's history valid in place (after a cancel, crash or error).

        With `partial_reply` (text streamed before an interruption) the turn is closed by an
        AI message keeping what arrived, marked as interrupted.
        """
        if not self.session_saved:
            return False  # no history yet
        config = self._config()
        state = await self._graph.aget_state(config)
        history = list(state.values.get("messages", [])) if state and state.values else []
        fixed, changed = repair_history(history)
        ends_open = bool(fixed) and not isinstance(fixed[-1], AIMessage)
        if partial_reply is not None and ends_open:
            text = f"{partial_reply.rstrip()}\n\n{INTERRUPTED_MARK}" if partial_reply.strip() \
                else INTERRUPTED_MARK
            fixed.append(AIMessage(content=text))
            changed = True
        if changed or (state is not None and state.next):
            await self._graph.aupdate_state(config, {"messages": replace_all(fixed)},
                                            as_node="agent")
        return changed

    # ----------------------------------------------------------------- turns
    async def take_last_turn(self) -> str:
        """Remove the last user turn (its message and everything after) from the history and
        return its text, so `/retry` can run it again. The turn is un-counted, its tokens stay
        spent and join the next turn's token_log entry (see `agent.accounting`)."""
        history = await self.messages()
        index = next((i for i in range(len(history) - 1, -1, -1)
                      if isinstance(history[i], HumanMessage)), None)
        if index is None:
            raise EngineError("nothing to retry: this session has no message yet")
        meta = self.require_session()
        if index == 0:  # an empty history: drop the thread (an update needs a last message)
            await self._saver.adelete_thread(meta.id)
        else:
            await self._graph.aupdate_state(self._config(), {"messages": replace_all(
                history[:index])}, as_node="agent")
        take_back_turn(self.sessions, meta)
        return content_text(history[index].content)

    async def retry_turn(self, *, approver: Approver | None = None
                         ) -> AsyncIterator[TurnEvent]:
        """Run the last user turn again (after an error or an interruption)."""
        text = await self.take_last_turn()
        async for event in self.run_turn(text, approver=approver):
            yield event

    async def run_turn(self, text: str, *, approver: Approver | None = None
                       ) -> AsyncIterator[TurnEvent]:
        """Run one user turn, yielding events. Never raises for engine/provider failures: they
        become a `TurnError` event. Cancellation leaves a valid history. An unsaved session is
        saved first (`persist_session`; its id may change). The tokens of every completed model
        call are counted, however the turn ends."""
        meta = self.require_session()
        if not meta.saved:
            try:
                self.persist_session()
            except OSError as exc:
                yield TurnError(message=f"could not create the session file: {exc}")
                return
        await self.repair_session()
        context = AgentContext(
            model=self.model,
            toolbox=self.toolbox,
            memory=[entry.content for entry in self.memory.entries()],
            approver=approver,
            max_tool_calls=self.options.max_tool_calls,
        )
        streamed: list[str] = []  # text of the model call in progress
        used_in = used_out = 0
        asked = HumanMessage(content=text, id=str(uuid.uuid4()))  # found again for accounting
        try:
            async for mode, data in self._graph.astream(
                {"messages": [asked]},
                self._config(),
                context=context,
                stream_mode=["messages", "updates", "custom"],
                durability="sync",  # a finished step is on disk before the next starts
            ):
                for event in translate(mode, data):
                    if event.type == "token":
                        streamed.append(event.text)  # type: ignore[attr-defined]
                    elif isinstance(event, UsageReported):
                        streamed.clear()
                        used_in += event.input_tokens
                        used_out += event.output_tokens
                    yield event
            reply = final_reply(await self.messages())
            yield TurnDone(text=content_text(reply.content) if reply is not None else "")
        except (asyncio.CancelledError, GeneratorExit):
            used_in, used_out = await self._close_interrupted(
                "".join(streamed), asked.id, (used_in, used_out))
            raise
        except Exception as exc:  # provider, tool plumbing, anything: the app goes on
            used_in, used_out = await self._close_interrupted(
                "".join(streamed), asked.id, (used_in, used_out))
            yield TurnError(message=one_line(exc))
        finally:
            record_turn(self.sessions, meta, text, used_in, used_out)

    async def _close_interrupted(self, partial: str, asked_id: str | None,
                                 used: tuple[int, int]) -> tuple[int, int]:
        """Repair the history of a turn that did not finish; return its spent tokens, counting
        a call that completed (and was checkpointed) just before its usage event got out."""
        try:
            await self.repair_session(partial_reply=partial)
            seen = usage_after(await self.messages(), asked_id or "")
        except Exception:  # noqa: BLE001 - repair runs again before the next turn
            return used
        if seen is None:
            return used
        return max(used[0], seen[0]), max(used[1], seen[1])
