"""`LocalBirdie`: the front door over the engine in this process (sqlite + JSON under
`BIRDIE_HOME`, or PostgreSQL). Importing it is cheap; `start` imports the engine off the
event loop. Start never leaves a half-started service: a bad request (unknown or corrupt
session id, unknown --enable skill, a vendor without its key) is said in one line and a
working session opens anyway; what stops the engine itself raises `BirdieError`, closed.
Sessions open side by side (`desk.py`): a turn runs on in its session when another is
shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from birdie_tui.events import (AgentsChanged, ChangeEvent, McpFailed, MemoryChanged, Recovered, SessionOpened,
                               SkillsChanged, SkillsReloaded, StatusChanged, TotalsChanged,
                               TurnEvent)
from birdie_tui.service.local import rows as local_rows
from birdie_tui.service.local.approvals import LocalApprovals
from birdie_tui.service.local.commands import LocalCommands
from birdie_tui.service.local.context import LocalContext
from birdie_tui.service.local.desk import SessionDesk
from birdie_tui.service.local.agents import LocalAgents
from birdie_tui.service.local.given import LocalGivenServers
from birdie_tui.service.local.schedules import LocalSchedules
from birdie_tui.service.local.start import (
    DoorOptions, failed_start, import_engine, make_engine, open_first, tell_waits, user_errors)
from birdie_tui.service.protocol import Approver, BirdieError, Listener, SettingValue
from birdie_tui.service.ui_settings import save_ui_settings, settings_row
from birdie_tui.service.rows import (
    BrokenSkillFile,
    InjectionView,
    McpRow,
    MemoryNote,
    ModelChoice,
    ModelFacts,
    SessionPulse,
    SessionRow,
    SettingsRow,
    SkillRow,
    Started,
    Status,
    TokenLedger,
    ToolRow,
    TranscriptItem,
)
from birdie_tui.text import one_line
from birdie_tui.workspace import Workspace

if TYPE_CHECKING:  # imported by `start`, after the first paint
    from birdie_tui.agent.approvals import ApprovalAnswer
    from birdie_tui.mcp.manager import ServerStatus
    from birdie_tui.store.settings import Settings


class LocalBirdie(LocalCommands, LocalContext, LocalApprovals, LocalGivenServers, LocalAgents,
                  LocalSchedules):
    """The `Birdie` protocol over a local `Engine` (see `protocol.py` for each method)."""

    def __init__(self, *, user: str | None = None, skills_dirs: list[Path] | None = None,
                 config_file: Path | None = None, environ: Mapping[str, str] | None = None,
                 database_url: str | None = None,
                 agents_dirs: list[Path] | None = None) -> None:
        self._options: DoorOptions = {
            "user": user, "skills_dirs": skills_dirs, "agents_dirs": agents_dirs,
            "config_file": config_file,
            "database_url": database_url,
            "environ": dict(os.environ if environ is None else environ)}
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._heard: set[str] = set()  # recovery notices told (settings warnings repeat them)
        self._mcp_told: set[str] = set()  # MCP failures told
        self._unlisten: Callable[[], None] | None = None
        self._settings: Settings | None = None
        # The open sessions (see desk.py) once started; `engine` (tests read it) is the shown
        # session's, `_shown` the same for a door that has started.
        self._desk: SessionDesk | None = None

    # ------------------------------------------------------------------ life
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        self._listen_for_recoveries()
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: ChangeEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _listen_for_recoveries(self) -> None:
        """Files moved aside (corrupt memory, settings, sessions, database) are told as it
        happens, from whichever thread found them."""
        from birdie_tui.store import recovery

        if self._unlisten is None:
            self._unlisten = recovery.add_listener(self._recovered)

    def _recovered(self, message: str) -> None:
        with self._lock:
            if message in self._heard:
                return
            self._heard.add(message)
        self._emit(Recovered(message=message))

    async def start(self, *, session_id: str | None = None, continue_last: bool = False,
                    enable: Iterable[str] = (), disable: Iterable[str] = (),
                    strict: bool = False) -> Started:
        """`strict` (headless): a bad request or a missing key fails the start instead of
        falling back to a new session or the offline model."""
        self._listen_for_recoveries()
        engine_mod = None
        problems: list[str] = []
        try:
            engine_mod = await asyncio.to_thread(import_engine)
            engine = make_engine(self._options, problems, strict=strict)
            self._desk = SessionDesk(engine)  # from here on, `close` closes it
            tell_waits(engine, lambda: bool(self._listeners), self._emit)
            await engine.start()
            warnings = self._load_settings()
            if strict:
                if session_id is None and continue_last:
                    session_id = engine.latest_session_id()
                opened = await engine.open_session(session_id, enable=enable, disable=disable)
            else:
                opened = await open_first(engine, engine_mod.EngineError, session_id,
                                          continue_last, list(enable), list(disable), problems)
        except Exception as exc:  # noqa: BLE001 - one line for the user, nothing left open
            error = failed_start(self.engine, one_line(exc, as_is=user_errors(engine_mod)))
            await self.close()
            raise error from exc
        return Started(session_id=opened.id, new=opened.new, problems=tuple(problems),
                       warnings=tuple(warnings))

    def _started_desk(self) -> SessionDesk:
        if self._desk is None:
            raise BirdieError("Birdie has not started")
        return self._desk

    def _load_settings(self) -> list[str]:
        from birdie_tui.store.settings import load_settings

        self._settings, warnings = load_settings(self._shown.paths)
        return [w for w in warnings if w not in self._heard]

    async def close(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        with contextlib.suppress(Exception):
            self._close_run_log()
        # The engine itself, whichever session view was shown.
        desk, self._desk = self._desk, None
        if desk is not None:
            with contextlib.suppress(Exception):  # closing goes on; a failed start says why
                await desk.root.aclose()

    # ------------------------------------------------------------------ what is shown
    def status(self) -> Status:
        return local_rows.status_row(self._shown)

    def ledger(self) -> TokenLedger:
        return self._shown.token_ledger()

    def settings(self) -> SettingsRow:
        return settings_row(self._settings)

    def save_settings(self, **changes: SettingValue) -> None:
        engine = self.engine
        paths = engine.paths if engine is not None else None
        save_ui_settings(self._settings, paths, changes)

    def resume_command(self) -> str | None:
        from birdie_tui.resume import resume_command

        engine = self.engine
        if engine is None or engine.session is None or not engine.session_saved:
            return None
        # A URL given on the command line must be given again; one from the environment or
        # settings.json is found again by itself.
        return resume_command(engine.session.id, user=self._options["user"],
                              database_url=self._options["database_url"])

    # ------------------------------------------------------------------ turns
    def send(self, text: str, *, approver: Approver | None = None,
             workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]:
        """Run one turn; its events come back in order. Totals, status, skills (MCP servers
        may have started) and MCP failures are told to the listeners as they change. A
        conversation that reached the auto-compaction threshold is compacted first. A step
        that needs approval asks `approver`; without one it stays pending (`resume`). The
        turn's bash: tools use `workspace` where it offers to (the engine's turn hands it to
        the tool step)."""
        return self._turn(text, approver=approver, workspace=workspace)

    async def _turn(self, text: str, *, approver: Approver | None = None,
                    resume: dict[str, ApprovalAnswer] | None = None,
                    workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]:
        if resume is None:
            await self.auto_compact()
        desk = self._started_desk()
        engine = desk.shown  # the turn's view, whatever is shown later
        desk.turn_started(engine)
        answered = self._pending_run(engine)  # a pending run answered now (runs.py)
        try:
            async with contextlib.aclosing(engine.run_turn(
                    text, approver=approver, resume=resume, workspace=workspace)) as run:
                async for event in run:
                    if answered is not None:
                        answered.see(event)
                    yield event
                    if event.type == "usage":
                        self._emit_totals()
        finally:
            desk.turn_ended(engine)
            if answered is not None:
                answered.settle(engine)
            self._emit_totals()
            self._emit(StatusChanged())
            self._emit(SkillsChanged())
            self._tell_mcp_failures()

    def save_session(self) -> str:
        """Write the open session now if it is still unsaved; its id (which may change)."""
        try:
            return self._shown.persist_session().id
        except OSError as exc:
            raise BirdieError(f"could not create the session file: {exc}") from exc

    async def take_last_turn(self) -> str:
        from birdie_tui.agent.options import EngineError

        try:
            text = await self._shown.take_last_turn()
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        self._emit_totals()
        self._emit(StatusChanged())
        return text

    def _emit_totals(self) -> None:
        ledger = self.ledger()
        self._emit(TotalsChanged(session_in=ledger.session_in, session_out=ledger.session_out))

    # ------------------------------------------------------------------ sessions
    def session_rows(self) -> list[SessionRow]:
        return local_rows.session_rows(self._shown)

    async def transcript(self) -> list[TranscriptItem]:
        return local_rows.transcript_items(await self._shown.messages())

    async def injection(self) -> InjectionView:
        records = await self._shown.contexts()
        return local_rows.last_turn_injection(self._shown, await self._shown.messages(),
                                              records[-1] if records else None)

    async def new_session(self) -> None:
        _, session_id = await self._started_desk().new()
        self._emit(SessionOpened(id=session_id, new=True))

    async def open_session(self, session_id: str) -> None:
        from birdie_tui.agent.options import EngineError

        desk = self._started_desk()
        if getattr(desk.shown.session, "id", None) == session_id:  # already shown
            return
        try:
            _, opened = await desk.open(session_id)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        self._emit(SessionOpened(id=opened, new=False))

    async def session_pulse(self) -> SessionPulse:  # see SessionDesk.pulse
        return await self._desk.pulse() if self._desk is not None else SessionPulse()

    def rename_session(self, session_id: str, title: str) -> None:
        from birdie_tui.agent.options import EngineError

        try:
            self._shown.rename_session(session_id, title)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        self._emit(StatusChanged())

    async def delete_session(self, session_id: str) -> None:
        from birdie_tui.agent.options import EngineError

        if session_id in self._started_desk().parked:
            raise BirdieError(f"session {session_id} is running a turn: open it, Esc, then delete")
        try:
            replacement = await self._shown.delete_session(session_id)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        if replacement is not None:
            self._emit(SessionOpened(id=replacement.id, new=True))

    # ------------------------------------------------------------------ skills, tools, MCP
    def skill_rows(self) -> list[SkillRow]:
        return local_rows.skill_rows(self._shown)

    def broken_files(self) -> list[BrokenSkillFile]:
        return local_rows.broken_files(self._shown)

    def set_skill(self, name: str, enabled: bool | None = None) -> SkillRow:
        engine = self._shown
        skill = engine.registry.get(name)
        if skill is None:
            raise BirdieError(f"unknown skill {name!r}; /skill list shows the loaded ones")
        engine.set_skill_enabled(skill.name, (not engine.is_enabled(skill))
                                 if enabled is None else enabled)
        self._emit(SkillsChanged())
        return next(row for row in self.skill_rows() if row.name == skill.name)

    async def reload_skills(self, touched: Iterable[Path] = (), *, forced: bool = False) -> None:
        """Rescan the skill folders; listeners hear `skills` and, when something changed (or
        it was asked for), `reloaded` with what."""
        folders = list(self._shown.skill_dirs)
        try:
            report = await self._shown.reload_skills_async(touched)
        except Exception as exc:  # noqa: BLE001 - a reload never takes the app down
            self._emit(SkillsReloaded(summary=f"Skill reload failed: {one_line(exc)}",
                                      trouble=True, forced=True))
            return
        self._emit(SkillsChanged())
        self._emit(AgentsChanged())  # agent files are read again with the skills
        if folders != self._shown.skill_dirs:  # `$BIRDIE_HOME/skills` appeared: /help lists it
            self._emit(StatusChanged())
        if report.empty and not forced:
            return
        from birdie_tui.skills.reload import broken_files_note

        summary = report.summary() if not report.empty else \
            f"Rescanned: {len(self._shown.skills())} skills, no changes."
        errors = list(self._shown.registry.errors) if report.empty else []
        if errors:  # broken before and still broken: "no changes" alone would hide them
            summary = f"{summary[:-1]}; {broken_files_note(errors)}."
        self._emit(SkillsReloaded(summary=summary, trouble=bool(report.broken or errors or
                                                               report.new_errors),
                                  forced=forced))

    async def watch_skills(self) -> None:
        """Follow the skill folders until cancelled, reloading on each change."""
        from birdie_tui.skills.watcher import watch_skill_dirs
        from birdie_tui.store.logfile import log_to_file

        log_to_file(self._shown.paths.logs_dir)
        async for touched in watch_skill_dirs(self._shown.watched_skill_dirs()):
            await self.reload_skills(touched)

    async def tools(self) -> list[ToolRow]:
        return [ToolRow(t.name, (t.description or "").splitlines()[0] if t.description else "")
                for t in await self._shown.toolbox.tools()]

    def mcp_rows(self) -> list[McpRow]:
        return [local_rows.mcp_row(s) for s in self._shown.mcp_status()]

    async def restart_mcp(self, skill: str) -> McpRow:
        engine = self._shown
        found = engine.registry.get(skill)
        if found is None and any(s.skill.lower() == skill.lower() for s in engine.mcp_status()):
            status = await engine.restart_mcp(skill)  # a server the client gave this session
        else:
            status = await self._restart_skill_server(skill)
        self._emit(SkillsChanged())
        self._tell_mcp_failures()
        return local_rows.mcp_row(status)

    async def _restart_skill_server(self, skill: str) -> ServerStatus:
        engine = self._shown
        found = engine.registry.get(skill)
        if found is None or found.mcp_server is None:
            raise BirdieError(f"no MCP skill {skill!r} — /mcp lists them")
        if not engine.is_enabled(found):
            raise BirdieError(f"{found.name} is off for this session — enable it first")
        return await engine.restart_mcp(found.name)

    def _tell_mcp_failures(self) -> None:
        """Each MCP server failure is told once (the sidebar keeps showing it)."""
        engine = self.engine
        for status in engine.mcp_status() if engine is not None else ():
            key = f"{status.skill}\0{status.error}"
            if status.state == "failed" and key not in self._mcp_told:
                self._mcp_told.add(key)
                self._emit(McpFailed(skill=status.skill, error=status.error or ""))

    # ------------------------------------------------------------------ memory
    def memory(self) -> list[MemoryNote]:
        return [MemoryNote(e.id, e.content) for e in self._shown.memory.entries()]

    def remember(self, text: str) -> MemoryNote:
        if not text.strip():
            raise BirdieError("usage: /remember <text>")
        entry = self._shown.memory.add(text)
        self._emit(MemoryChanged(count=len(self._shown.memory.entries())))
        return MemoryNote(entry.id, entry.content)

    def forget(self, key: str) -> MemoryNote:
        entry = self._shown.memory.delete(key)
        if entry is None:
            raise BirdieError(f"no memory entry {key!r} — /memory lists them")
        self._emit(MemoryChanged(count=len(self._shown.memory.entries())))
        return MemoryNote(entry.id, entry.content)

    # ------------------------------------------------------------------ models
    def model_facts(self) -> ModelFacts:
        engine = self._shown
        return ModelFacts(engine.model_label, engine.context_window, engine.price)

    def model_choices(self) -> list[ModelChoice]:
        from birdie_tui.providers.selection import choices

        engine = self._shown
        return [ModelChoice(c.vendor, tuple(c.models), c.current,
                            engine.provider.model if c.current else None)
                for c in choices(engine.provider, engine.options.environ,
                                 engine.options.config_file)]

    async def switch_model(self, spec: str) -> str:
        """`spec` is VENDOR/MODEL, VENDOR or MODEL; the new label is returned."""
        from birdie_tui.providers.config import ConfigError
        from birdie_tui.providers.selection import parse_choice

        engine = self._shown
        vendor, model = parse_choice(spec, engine.provider)
        try:
            label = await engine.switch_model(vendor, model)
        except ConfigError as exc:  # no key for that vendor, unknown vendor: no switch
            raise BirdieError(str(exc)) from None
        self._emit(StatusChanged())
        self._emit_totals()
        return label
