"""Starting the engine after the first paint, and never ending up with a dead app.

A start can fail in two ways. A bad request (an unknown or corrupt `--session-id`, an unknown
`--enable` skill) is said in one line and a working session opens anyway. A failed engine (an
import or provider that cannot start) is shown with what to do next; ctrl+n or /retry tries
again, and nothing waits forever for it: `settled` is set on success and on failure alike.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from birdie_tui.tui.app import BirdieApp


class Boot:
    """The engine's start for one app: state, retry, and the recovery-notice listener."""

    def __init__(self, app: BirdieApp) -> None:
        self.app = app
        self.settled = asyncio.Event()  # the last start attempt ended, well or not
        self.error: str | None = None  # why the last attempt failed
        self.problems: list[str] = []  # start requests that could not be honoured
        self.heard: set[str] = set()  # recovery notices shown (boot warnings repeat them)
        self._unlisten: Any = None

    @property
    def failed(self) -> bool:
        return self.error is not None and self.app.engine is None

    async def wait(self) -> bool:
        """Wait for the current attempt; True when an engine is running."""
        await self.settled.wait()
        return self.app.engine is not None

    def listen_for_recoveries(self) -> None:
        """Files moved aside (corrupt memory, settings, sessions) are announced when it happens,
        from whichever thread found them."""
        from birdie_tui.store import recovery

        if self._unlisten is not None:
            return
        loop = asyncio.get_running_loop()

        def heard(message: str) -> None:
            loop.call_soon_threadsafe(self._recovered, message)

        self._unlisten = recovery.add_listener(heard)

    def _recovered(self, message: str) -> None:
        self.heard.add(message)
        self.app.notify(message, title="Recovered", severity="warning", timeout=12)

    def stop_listening(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    async def start(self, *, session_id: str | None, retry: bool = False) -> Any:
        """Start an engine and open a session; returns the engine, or None after saying why."""
        self.settled.clear()
        self.error = None
        self.problems = []
        engine = engine_mod = None
        try:
            self.listen_for_recoveries()
            # The heavy imports (LangGraph, LangChain) run off the UI loop, after first paint.
            engine_mod = await asyncio.to_thread(importlib.import_module,
                                                 "birdie_tui.agent.engine")
            engine = self.app.make_engine(engine_mod)
            await engine.start()
            await self.app.load_settings(engine)
            opened = await self._open_session(engine, engine_mod.EngineError,
                                              None if retry else session_id)
        except Exception as exc:  # noqa: BLE001 - shown, never fatal
            from birdie_tui.text import one_line

            # An EngineError is already a sentence for the user; anything else gets its type.
            engine_error = getattr(engine_mod, "EngineError", None)
            self.error = one_line(exc, as_is=(engine_error,) if engine_error else ())
            if engine is not None:
                await _close_quietly(engine)
            self.settled.set()
            return None
        self.settled.set()
        return engine, opened

    async def _open_session(self, engine: Any, engine_error: type[Exception],
                            session_id: str | None) -> Any:
        args = self.app.args
        if session_id is None and args.continue_session:
            session_id = engine.latest_session_id()
        enable, disable = list(args.enable or ()), list(args.disable or ())
        try:
            return await engine.open_session(session_id, enable=enable, disable=disable)
        except engine_error as exc:
            first = str(exc)
        unknown = [n for n in (*enable, *disable) if engine.registry.get(n) is None]
        enable = [n for n in enable if n not in unknown]
        disable = [n for n in disable if n not in unknown]
        if unknown:
            self.problems.append(f"{first} — ignored it.")
            try:
                return await engine.open_session(session_id, enable=enable, disable=disable)
            except engine_error as exc:
                first = str(exc)
        self.problems.append(f"{first} — opened a new session instead.")
        return await engine.open_session(None, enable=enable, disable=disable)


async def _close_quietly(engine: Any) -> None:
    try:
        await engine.aclose()
    except Exception:  # noqa: BLE001 - the start already failed; say that, not this
        pass
