"""How `LocalBirdie.start` makes its engine and opens the first session without ever leaving
the user with nothing: each request that cannot be honoured is said in `problems`, and the
next best thing is done (unless `strict`, as headless runs are)."""

from __future__ import annotations

import contextlib
import gc
import importlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypedDict

from birdie_tui.events import ChangeEvent, SessionBusy, SessionOpened
from birdie_tui.service.local.lazy_packages import defer_unused_packages
from birdie_tui.service.protocol import BirdieError

if TYPE_CHECKING:  # imported by `LocalBirdie.start`, off the event loop, after the first paint
    from birdie_tui.agent.engine import Engine


class DoorOptions(TypedDict):
    """What `LocalBirdie` was made with: the `EngineOptions` its engine is built from."""

    user: str | None
    skills_dirs: list[Path] | None
    agents_dirs: list[Path] | None
    config_file: Path | None
    database_url: str | None
    environ: dict[str, str]


# Allocations between young collections while the engine is imported (Python's default: 700).
IMPORT_GC_THRESHOLD = 20_000
_importing = threading.Lock()  # two doors starting at once must not leave the threshold raised


def import_engine() -> ModuleType:
    """The engine module, imported with young collections 30x rarer: its ~1,000 modules are
    objects that live as long as the process, so the collections their allocations trigger
    free almost nothing and cost ~50 ms of CPU on the way to the first answer. The collector
    stays on (paused outright it saves ~15 ms more but leaves ~1 MiB of garbage in the idle
    RSS): bench/RESULTS.md §17. Run off the event loop. Packages it needs one piece of are
    left unrun (`lazy_packages`), and pydantic models are built when first used."""
    with _importing, models_built_on_first_use():
        defer_unused_packages()
        thresholds = gc.get_threshold()
        gc.set_threshold(max(IMPORT_GC_THRESHOLD, thresholds[0]), *thresholds[1:])
        try:
            return importlib.import_module("birdie_tui.agent.engine")
        finally:
            gc.set_threshold(*thresholds)


@contextlib.contextmanager
def models_built_on_first_use() -> Iterator[None]:
    """Pydantic models defined meanwhile build their validators when first used (pydantic's
    `defer_build`), not when their class is made. The engine's import defines ~440 models, and
    langsmith's (imported by langchain-core, never used here) are most of them: building
    them all cost ~0.13 s and ~2 MiB for as long as the app runs (bench/RESULTS.md §34).
    Pydantic has no public default for it, so this sets the default its config reads; a
    pydantic without it is left alone. tests/service/test_engine_import.py checks both."""
    try:
        from pydantic._internal._config import config_defaults
    except ImportError:
        yield
        return
    saved = config_defaults.get("defer_build", False)
    config_defaults["defer_build"] = True
    try:
        yield
    finally:
        config_defaults["defer_build"] = saved


def user_errors(engine_mod: ModuleType | None) -> tuple[type[BaseException], ...]:
    """Errors whose text is already a sentence for the user (no type name in front)."""
    from birdie_tui.providers.config import ConfigError
    from birdie_tui.store.paths import InvalidName

    engine_error = getattr(engine_mod, "EngineError", None)
    return (ConfigError, InvalidName, *((engine_error,) if engine_error else ()))


def make_engine(options: DoorOptions, problems: list[str], *, strict: bool) -> Engine:
    """The engine; a vendor without its key runs the offline model instead (said in
    `problems`), unless `strict`."""
    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ConfigError, ProviderConfig

    engine_options = EngineOptions(**options)
    try:
        return Engine(engine_options)
    except ConfigError as exc:
        if strict:
            raise
        # A missing key is a message, not a dead app: run offline and say why.
        problems.append(f"{exc} — using the offline model instead.")
        engine_options.provider = ProviderConfig(vendor="offline")
        return Engine(engine_options)


async def open_first(engine: Engine, engine_error: type[Exception], session_id: str | None,
                     continue_last: bool, enable: list[str], disable: list[str],
                     problems: list[str]) -> SessionOpened:
    """The session asked for; failing that, without the unknown skills; failing that, a new
    one (each fallback said in `problems`)."""
    if session_id is None and continue_last:
        session_id = engine.latest_session_id()
    try:
        return await engine.open_session(session_id, enable=enable, disable=disable)
    except engine_error as exc:
        first = str(exc)
    unknown = [n for n in (*enable, *disable) if engine.registry.get(n) is None]
    enable = [n for n in enable if n not in unknown]
    disable = [n for n in disable if n not in unknown]
    if unknown:
        problems.append(f"{first} — ignored it.")
        try:
            return await engine.open_session(session_id, enable=enable, disable=disable)
        except engine_error as exc:
            first = str(exc)
    problems.append(f"{first} — opened a new session instead.")
    return await engine.open_session(None, enable=enable, disable=disable)


def tell_waits(engine: Engine, listening: Callable[[], bool],
               emit: Callable[[ChangeEvent], None]) -> None:
    """A turn waiting for another process's turn on its session is told to the listeners (the
    TUI shows it); with none (`--print`) the engine says it on stderr, as it does alone."""

    told = engine.on_wait

    def on_wait(message: str) -> None:
        if listening():
            emit(SessionBusy(message=message))
        else:
            told(message)

    engine.on_wait = on_wait


def failed_start(engine: Engine | None, message: str) -> BirdieError:
    """The BirdieError for a failed start, carrying the skills the engine had read, if any."""
    from birdie_tui.service.local import rows as local_rows

    error = BirdieError(message)
    if engine is not None:
        with contextlib.suppress(Exception):  # a half-made engine may have none to give
            error.skills = tuple(local_rows.skill_rows(engine))
            error.broken = tuple(local_rows.broken_files(engine))
    return error
