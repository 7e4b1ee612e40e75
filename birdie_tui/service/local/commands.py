"""The door's side of the commands Birdie users know: `/cost`, `/history`, `/rewind`,
`/fork`, `/skill new`, `/tool cap` and `/cd`.

A mixin of `LocalBirdie` (see `protocol.py` for the contract): it uses the engine, `_emit`,
`ledger` and `reload_skills` of the class it is mixed into. Cheap to import, like the package's `__init__.py`.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from birdie_tui.events import ChangeEvent, SessionOpened, StatusChanged
from birdie_tui.agent.ledger import TokenLedger
from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.protocol import BirdieError
from birdie_tui.service.rows import CostReport, NewSkill, ShellRun, UserTurn

if TYPE_CHECKING:
    from birdie_tui.agent.engine import Engine
    from birdie_tui.store.input_history import InputHistory


class SkillReloader(Protocol):
    """`LocalBirdie.reload_skills`: rescan the skill folders and tell the listeners."""

    async def __call__(self, touched: Iterable[Path] = (), *, forced: bool = False
                       ) -> None: ...


class LocalCommands(OnDesk):
    """`/cost`, `/history`, `/skill new`, `/tool cap` and `/cd` over the local engine."""

    _emit: Callable[[ChangeEvent], None]
    _emit_totals: Callable[[], None]
    ledger: Callable[[], TokenLedger]
    reload_skills: SkillReloader
    open_session: Callable[[str], Awaitable[None]]

    # ------------------------------------------------------------------ /cost
    def cost(self) -> CostReport:
        """/cost: the ledger's report (`agent.ledger.cost_report`, as the remote door's)."""
        from birdie_tui.agent.ledger import cost_report

        engine = self._shown  # its token account is the one owner of the figures
        return cost_report(engine.session, engine.tokens.ledger, self.ledger(),
                           engine.model_label)

    # ------------------------------------------------------------------ /history
    async def history(self, limit: int = 10) -> list[UserTurn]:
        """Your last `limit` messages in the open session, numbered by turn (oldest first)."""
        from birdie_tui.service.local.rows import user_turns

        return user_turns(await self._shown.messages(), limit)

    # ------------------------------------------------------------------ /rewind, /fork
    async def rewind(self, n: int | None = None) -> str:
        """Drop your message `n` (as /history numbers it; None: the last) and everything
        after from the shown session; its text. Listeners hear `session` (every panel reads
        the shorter history, as on opening it), `totals` and `status`."""
        from birdie_tui.agent.options import EngineError

        engine = self._not_turning("rewind")
        try:
            text = await engine.rewind(n)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        self._emit(SessionOpened(id=engine.require_session().id, new=False))
        self._emit_totals()
        self._emit(StatusChanged())
        return text

    async def fork(self, n: int | None = None) -> str:
        """A new session "fork of …" with the shown one's history before your message `n`
        (None: the last), shown now; its id. The original is left as it is."""
        from birdie_tui.agent.options import EngineError

        engine = self._not_turning("fork")
        try:
            meta = await engine.fork(n)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        except OSError as exc:
            raise BirdieError(f"could not create the fork's session file: {exc}") from None
        await self.open_session(meta.id)
        return meta.id

    def _not_turning(self, what: str) -> Engine:
        engine = self._shown
        session = engine.session
        if session is not None and self._desk is not None \
                and session.id in self._desk.running():
            raise BirdieError(f"Birdie is still answering in this session — Esc cancels the "
                              f"turn, then {what}")
        return engine

    # ------------------------------------------------------------------ ctrl+r
    def input_history(self, limit: int = 1000) -> list[str]:
        return self._inputs().entries(limit)

    def record_input(self, text: str) -> None:
        self._inputs().add(text)

    def _inputs(self) -> InputHistory:
        from birdie_tui.store.input_history import InputHistory

        return InputHistory(self._shown.paths.input_history_file)

    # ------------------------------------------------------------------ /skill new
    async def new_skill(self, name: str) -> NewSkill:
        """Write `$BIRDIE_HOME/skills/<name>/SKILL.MD` from the template and load it. A
        skills folder this session did not load from (it did not exist at start, or
        `--skills-dir` replaced the defaults) joins the session's folders first."""
        from birdie_tui.skills.scaffold import scaffold_skill
        from birdie_tui.store.paths import InvalidName, validate_skill_name

        engine = self._shown
        try:
            validate_skill_name(name)
        except InvalidName as exc:
            raise BirdieError(str(exc)) from None
        known = engine.registry.get(name)
        if known is not None:
            raise BirdieError(f"a skill named {known.name!r} is already loaded "
                              f"({known.path}) — edit that file instead")
        folder = Path(engine.paths.user_skills_dir)
        try:
            path = scaffold_skill(folder, name)
        except FileExistsError as exc:
            raise BirdieError(f"{exc} — nothing was overwritten") from None
        except OSError as exc:
            raise BirdieError(f"could not create the skill: {exc}") from None
        added = self._add_skill_dir(folder)
        await self.reload_skills(forced=False)
        return NewSkill(name=name, path=str(path), folder_added=added)

    def _add_skill_dir(self, folder: Path) -> bool:
        """Make `folder` one of the skill folders the engine loads (and the watcher follows
        when it starts again); False if it already was."""
        engine = self._shown
        wanted = folder.expanduser().resolve()
        if any(Path(d).expanduser().resolve() == wanted for d in engine.skill_dirs):
            return False
        engine.skill_dirs = [*engine.skill_dirs, folder]
        self._emit(StatusChanged())
        return True

    # ------------------------------------------------------------------ /tool cap
    def tool_call_limit(self) -> int | None:
        """Tool calls a turn may make before the loop guard makes the model answer."""
        cap = self._shown.options.max_tool_calls
        return cap if cap > 0 else None

    def set_tool_call_limit(self, limit: int | None) -> int | None:
        """From the next turn on, until the app ends; None: no limit."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 1):
            raise BirdieError("the tool-call limit is a whole number of at least 1, or off")
        self._shown.options.max_tool_calls = limit or 0
        return self.tool_call_limit()

    # ------------------------------------------------------------------ /cd
    def working_dir(self) -> str:
        """Where tools run (bash and python tools use the process's working directory)."""
        try:
            return os.getcwd()
        except OSError:
            raise BirdieError("the working directory no longer exists — /cd to another "
                              "one") from None

    async def run_shell(self, command: str) -> ShellRun:
        line = await self._shown.run_shell(command)
        return ShellRun(command=line.command, output=line.output, error=line.error,
                        refused=line.refused)

    def change_dir(self, path: str) -> str:
        """Make `path` (`~` expanded, relative to the working directory) the working
        directory of the agent's tools; the new one is returned."""
        if not path.strip():
            raise BirdieError("usage: /cd <path>")
        target = Path(os.path.expanduser(path.strip()))
        if not target.is_absolute():
            target = Path(self.working_dir()) / target
        try:
            os.chdir(target)
        except FileNotFoundError:
            raise BirdieError(f"no such directory: {target}") from None
        except NotADirectoryError:
            raise BirdieError(f"not a directory: {target}") from None
        except PermissionError:
            raise BirdieError(f"permission denied: {target}") from None
        except OSError as exc:
            raise BirdieError(f"cannot change to {target}: {exc.strerror or exc}") from None
        self._emit(StatusChanged())
        return self.working_dir()
