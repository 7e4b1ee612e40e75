"""The engine: skills, the model, the checkpointer, and one user turn at a time.

It owns the skill registry, the current session and its policy, the token ledger, the
checkpointer and the model, and runs one user turn as an async stream of typed events
(`run_turn`). Front ends do not hold it: they talk to `birdie_tui.service`, which wraps it.
Session operations live in `session_ops.py` (a mixin).

A new session is lazy: `open_session(None)` gives an unsaved session (`session_saved` False)
with a provisional id; nothing reaches the disk until its first turn runs (`persist_session`),
so starting and quitting leaves no empty session behind.
"""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.agent.accounting import record_turn, take_back_turn, usage_after
from birdie_tui.agent.checkpointer import open_checkpointer
from birdie_tui.agent.compact_ops import CompactOps
from birdie_tui.agent.events import TurnDone, TurnError, TurnEvent, UsageReported
from birdie_tui.agent.graph import AgentContext, Approver, build_graph, replace_all
from birdie_tui.agent.ledger import Ledger, TokenLedger
from birdie_tui.agent.session_ops import INTERRUPTED_MARK, SessionOps
from birdie_tui.agent.options import (
    EngineError,
    EngineOptions,
    default_skill_dirs,
    mcp_start_timeout,
)
from birdie_tui.agent.sources import custom_system_prompt
from birdie_tui.agent.stream import agent_reply, translate
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.mcp.manager import MCPManager, ServerStatus
from birdie_tui.providers.catalog import context_window, price_per_million
from birdie_tui.providers.config import resolve_provider_config
from birdie_tui.providers.factory import create_chat_model, describe, load_adapter
from birdie_tui.secrets import collect_secrets, remember_config
from birdie_tui.skills.loader import load_skills
from birdie_tui.skills.models import LoadResult, Skill, SkillError
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.skills.reload import ReloadReport, merge_reload
from birdie_tui.store import BirdiePaths, MemoryStore, SessionMeta, SessionStore
from birdie_tui.store.paths import default_user, validate_user
from birdie_tui.store.settings import load_settings
from birdie_tui.text import content_text, one_line, scrub_surrogates

__all__ = ["INTERRUPTED_MARK", "Engine", "EngineError", "EngineOptions", "default_skill_dirs"]

class Engine(SessionOps, CompactOps):
    def __init__(self, options: EngineOptions | None = None):
        self.options = options or EngineOptions()
        env = self.options.environ
        self.paths = self.options.paths or BirdiePaths.from_env(env)
        self.user = validate_user(self.options.user or default_user(env))
        self.skill_dirs = self.options.skills_dirs or default_skill_dirs(self.paths, env)
        self.provider = self.options.provider or resolve_provider_config(
            env, self.options.config_file
        )
        # Every key and base_url password this app can know of, masked wherever text leaves it.
        collect_secrets(env, self.options.config_file)
        remember_config(self.provider)
        self.sessions = SessionStore(self.paths, self.user)
        self.settings = load_settings(self.paths)[0]  # the front end reports its warnings
        self.last_call = None  # the latest model call's provenance (auto-compaction reads it)
        self.memory = MemoryStore(self.paths, self.user)
        self.registry = SkillRegistry(LoadResult())
        self.broken_skills: dict[str, SkillError] = {}  # name -> error; last good version kept
        self.policy = SkillPolicy()
        self.session: SessionMeta | None = None
        self.ledger = Ledger()  # the one owner of token counts and cost
        self.model: Any = None
        # MCP servers start lazily, on the first model call that needs their tools.
        self.mcp = MCPManager(self.paths.logs_dir, start_timeout=mcp_start_timeout(self.options),
                              call_timeout=self.options.tool_timeout, environ=env)
        self.toolbox = Toolbox(self.registry, lambda: self.policy,
                               tool_timeout=self.options.tool_timeout,
                               mcp_tools=self.mcp.tools_for)
        self._graph: Any = None
        self.needs_repair = True  # see SessionOps: the open history may need a repair
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

    @property
    def price(self) -> tuple[float, float, float] | None:
        """USD per million tokens (input, output, cached input); None if unknown."""
        return price_per_million(self.provider.vendor, self.provider.model or "")

    def token_ledger(self) -> TokenLedger:
        return self.ledger.snapshot(self.session, context_window=self.context_window,
                                    price=self.price)

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

    async def run_turn(self, text: str, *, approver: Approver | None = None
                       ) -> AsyncIterator[TurnEvent]:
        """Run one user turn, yielding events. Never raises for engine/provider failures: they
        become a `TurnError` event. Cancellation leaves a valid history. An unsaved session is
        saved first (`persist_session`; its id may change). The tokens of every completed model
        call are counted, however the turn ends. The history is read back only to repair it
        (`needs_repair`): the final reply comes from the stream itself."""
        text = scrub_surrogates(text)  # an argv byte that is not UTF-8 arrives as one
        meta = self.require_session()
        if not meta.saved:
            try:
                self.persist_session()
            except OSError as exc:
                yield TurnError(message=f"could not create the session file: {exc}")
                return
        if self.needs_repair:
            await self.repair_session()
        context = AgentContext(
            model=self.model,
            toolbox=self.toolbox,
            memory=[entry.content for entry in self.memory.entries()],
            approver=approver,
            max_tool_calls=self.options.max_tool_calls,
            loading=self.prompt_setting("skill_loading"),
            decay_turns=self.prompt_setting("skill_decay_turns"),
            max_loaded=self.prompt_setting("skill_max_loaded"),
            context_window=self.context_window,
            custom_prompt=custom_system_prompt(self.paths.home),
        )
        tally = _Tally()
        self.ledger.begin_turn()
        asked = HumanMessage(content=text, id=str(uuid.uuid4()))  # found again for accounting
        self.needs_repair = True  # until the turn ends cleanly
        try:
            async for mode, data in self._graph.astream(
                {"messages": [asked]},
                self._config(),
                context=context,
                stream_mode=["messages", "updates", "custom"],
                durability="sync",  # a finished step is on disk before the next starts
            ):
                tally.reply = agent_reply(mode, data) or tally.reply
                for event in translate(mode, data):
                    self._tally(event, tally)
                    yield event
            self.needs_repair = False
            yield TurnDone(text=tally.final_text())
        except (asyncio.CancelledError, GeneratorExit):
            await self._close_interrupted(tally, asked.id)
            raise
        except Exception as exc:  # provider, tool plumbing, anything: the app goes on
            await self._close_interrupted(tally, asked.id)
            yield TurnError(message=one_line(exc))
        finally:
            self._record(meta, text, tally.used_in, tally.used_out)

    def _tally(self, event: TurnEvent, tally: _Tally) -> None:
        if event.type == "token":
            tally.streamed.append(event.text)  # type: ignore[attr-defined]
        elif event.type == "injected":
            self.last_call = event.context  # type: ignore[attr-defined]
        elif isinstance(event, UsageReported):
            tally.streamed.clear()
            tally.used_in += event.input_tokens
            tally.used_out += event.output_tokens
            self.ledger.add_call(event.input_tokens, event.output_tokens,
                                 event.cached_input_tokens, self.price)

    def _record(self, meta: Any, text: str, used_in: int, used_out: int) -> None:
        """Count the turn in the session file, with every completed call the ledger saw (and a
        call the history saw complete before its usage event got out)."""
        seen_in = sum(c.input for c in self.ledger.calls)
        seen_out = sum(c.output for c in self.ledger.calls)
        if used_in > seen_in or used_out > seen_out:
            self.ledger.add_call(max(0, used_in - seen_in), max(0, used_out - seen_out), 0,
                                 self.price)
        record_turn(self.sessions, meta, text, used_in, used_out,
                    cached=self.ledger.turn_cached(), cost=self.ledger.turn_cost(),
                    model=self.model_label)
        self.ledger.end_turn()

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
