"""On-disk state of birdie-tui under BIRDIE_HOME, compatible with Birdie 0.1.5's layout.

Owns paths, atomic JSON I/O, session metadata and the locks that let processes share it,
long-term memory and settings. It imports neither textual nor langgraph; checkpoint rows are only
ever deleted by SQL written here (`sessions`, `checkpoint_prune`: the engine runs the per-step
pruning statement on its own connection).
"""

from typing import Any

from .jsonio import move_aside, read_json, write_json_atomic
from .memory import MemoryEntry, MemoryStore
from .paths import (
    BirdiePaths,
    InvalidName,
    default_user,
    ensure_dir,
    validate_session_id,
    validate_user,
)
from .sessions import TOKEN_LOG_LIMIT, SessionMeta, SessionStore

# Settings need pydantic (~80 ms to import): loaded only when asked for, so `sessions list`
# and other quick commands never pay for it.
_LAZY = {"Settings", "load_settings", "save_settings"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import settings

        return getattr(settings, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "TOKEN_LOG_LIMIT",
    "BirdiePaths",
    "InvalidName",
    "MemoryEntry",
    "MemoryStore",
    "SessionMeta",
    "SessionStore",
    "Settings",
    "default_user",
    "ensure_dir",
    "load_settings",
    "move_aside",
    "read_json",
    "save_settings",
    "validate_session_id",
    "validate_user",
    "write_json_atomic",
]
