"""The door's side of what the model sees: the provenance of every model call,
compaction (manual and automatic) and the session export.

A mixin of `LocalBirdie` (see `protocol.py` for the contract): it uses the engine and `_emit`
of the class it is mixed into. Cheap to import, like the package's `__init__.py`: the engine's modules are
imported inside the methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from birdie_tui.events import ChangeEvent, Compacted, StatusChanged
from birdie_tui.modes import LOADING_MODES, LoadingMode, loading_mode_of
from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.local.start import DoorOptions
from birdie_tui.service.protocol import BirdieError, SessionNotFound
from birdie_tui.service.rows import CallContext, CompactionRow

if TYPE_CHECKING:
    from birdie_tui.agent.compactor import Compaction


class LocalContext(OnDesk):
    _options: DoorOptions
    _emit: Callable[[ChangeEvent], None]
    _emit_totals: Callable[[], None]

    def check_message(self, text: str) -> str | None:
        """Why `text` cannot be sent to the model (over its context window), or None."""
        problem = self._shown.message_problem(text)
        return problem[0].upper() + problem[1:] if problem else None

    async def contexts(self) -> list[CallContext]:
        """Every model call's provenance in this session, oldest first."""
        return await self._shown.contexts()

    async def compact(self, instructions: str = "") -> CompactionRow:
        from birdie_tui.agent.options import EngineError

        try:
            done = await self._shown.compact(instructions)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a provider failure is a message, not a crash
            raise BirdieError(f"compaction failed: {exc}") from None
        assert done is not None  # only an automatic compaction finds nothing to do
        self._told_compaction(done)
        return CompactionRow(messages=done.messages, summarised=done.summarised, kept=done.kept,
                             tokens_before=done.tokens_before, tokens_after=done.tokens_after,
                             summary=done.summary)

    async def auto_compact(self) -> None:
        """Before a turn: compact if the context reached the threshold. A failure is told as
        a `compacted` event with its error, and the turn goes on."""
        try:
            done = await self._shown.auto_compact()
        except Exception as exc:  # noqa: BLE001 - the turn must still run
            self._emit(Compacted(auto=True, error=str(exc) or type(exc).__name__))
            return
        if done is not None:
            self._told_compaction(done)

    def _told_compaction(self, done: Compaction) -> None:
        self._emit(Compacted(messages=done.messages, tokens_before=done.tokens_before,
                             tokens_after=done.tokens_after, auto=done.auto))
        self._emit_totals()
        self._emit(StatusChanged())

    def auto_compact_percent(self) -> int:
        """The share of the context window that triggers compaction (0: never)."""
        return int(self._shown.prompt_setting("auto_compact") or 0)

    def set_auto_compact(self, percent: int | None) -> int:
        """For this session (saved in its file); None: back to the settings.json value."""
        if percent is not None and not 0 <= percent <= 100:
            raise BirdieError("the auto-compaction threshold is a percentage from 1 to 100 "
                              "(or off)")
        self._shown.set_prompt_setting("auto_compact", percent)
        self._emit(StatusChanged())
        return self.auto_compact_percent()

    def skill_loading(self) -> LoadingMode:
        """How knowledge bodies reach the prompt in this session: triggers | model | both."""
        return loading_mode_of(self._shown.prompt_setting("skill_loading")) or "both"

    def set_skill_loading(self, mode: str | None) -> LoadingMode:
        """For this session (saved in its file); None: back to the settings.json value."""
        from birdie_tui.agent.options import EngineError

        if mode is not None and mode not in LOADING_MODES:
            raise BirdieError(f"unknown loading mode {mode!r}: triggers, model or both")
        try:
            self._shown.set_prompt_setting("skill_loading", mode)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        self._emit(StatusChanged())
        return self.skill_loading()

    async def export(self, fmt: str = "markdown") -> str:
        """The open session as Markdown or JSON: per turn, the messages, tool calls and the
        provenance of each model call."""
        from birdie_tui.agent.export import export_session

        if fmt not in ("markdown", "json"):
            raise BirdieError(f"unknown export format {fmt!r}: markdown or json")
        return export_session(self._shown.require_session(), await self._shown.messages(),
                              await self._shown.contexts(), fmt,
                              summary=await self._shown.rolling_summary(),
                              rewound=await self._shown.rewound())

    async def export_stored(self, session_id: str, fmt: str = "markdown") -> str:
        """A stored session, by id, as `export` gives the open one — without starting the
        door or opening the session (`sessions export`). The offline model stands in: an
        export needs no model or key. SessionNotFound when the user has no such session."""
        from birdie_tui.agent.engine import Engine, EngineOptions
        from birdie_tui.agent.export import export_session
        from birdie_tui.providers.config import ProviderConfig

        options = EngineOptions(**self._options)
        options.provider = ProviderConfig(vendor="offline")
        engine = Engine(options)
        try:
            await engine.start()
            meta = engine.sessions.load(session_id)
            if meta is None:
                raise SessionNotFound(f"session {session_id!r} not found for user {engine.user!r}")
            # `session_id` reads that session's thread; no session needs to be opened for it.
            return export_session(meta, await engine.messages(session_id),
                                  await engine.contexts(session_id), fmt,
                                  summary=await engine.rolling_summary(session_id),
                                  rewound=await engine.rewound(session_id))
        finally:
            await engine.aclose()
