"""What a session store and a memory store are, whichever holds them: the embedded files
under BIRDIE_HOME (`store.sessions`, `store.memory`) or a shared PostgreSQL database
(`store.pg.sessions`, `store.pg.memory`). The engine, the CLI and the server name these
protocols, so either store can be handed to them; `tests/store/test_store_contract.py` runs
the same tests over both.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .memory import MemoryEntry
from .session_meta import SessionMeta, SessionSummary

if TYPE_CHECKING:
    from birdie_tui.schedules.models import RunRecord

__all__ = ["MemoryStoreProtocol", "RunLogProtocol", "SessionStoreProtocol", "TurnLockProtocol"]



@runtime_checkable
class TurnLockProtocol(Protocol):
    """One session's turn lock: held by the process whose turn is running in it."""

    @property
    def held(self) -> bool: ...

    def try_acquire(self) -> bool: ...

    def holder(self) -> int | str | None: ...

    def release(self) -> None: ...


@runtime_checkable
class SessionStoreProtocol(Protocol):
    """Sessions' metadata: ids ``YYYY-MM-DD_N`` (never reused), load and save, lists newest
    first, the locks that let processes share a session, and delete."""

    user: str
    warnings: list[str]

    def next_id(self, today: date | None = None) -> str: ...

    def provisional(self, today: date | None = None) -> SessionMeta: ...

    def create(self, today: date | None = None, meta: SessionMeta | None = None
               ) -> SessionMeta: ...

    def exists(self, session_id: str) -> bool: ...

    def load(self, session_id: str) -> SessionMeta | None: ...

    def list(self, include_empty: bool = False, *, keep: str | None = None
             ) -> list[SessionMeta]: ...

    def summaries(self, include_empty: bool = False, *, keep: str | None = None
                  ) -> builtins.list[SessionSummary]: ...

    def latest(self, include_empty: bool = False) -> SessionMeta | None: ...

    def save(self, meta: SessionMeta) -> None: ...

    def update(self, session_id: str, change: Callable[[SessionMeta], bool | None]
               ) -> SessionMeta | None: ...

    def write_lock(self) -> AbstractContextManager[None]: ...

    def turn_lock(self, session_id: str) -> TurnLockProtocol: ...

    def record_turn(self, meta: SessionMeta, input_tokens: int, output_tokens: int, *,
                    carried: tuple[int, int] = (0, 0), cached: int = 0,
                    cost: float | None = None, model: str | None = None) -> SessionMeta: ...

    def set_title(self, meta: SessionMeta, title: str | None) -> SessionMeta: ...

    def delete(self, session_id: str) -> bool: ...

    def close(self) -> None: ...


@runtime_checkable
class MemoryStoreProtocol(Protocol):
    """One user's long-term notes, oldest first."""

    user: str
    warnings: list[str]

    def entries(self) -> list[MemoryEntry]: ...

    def add(self, text: str) -> MemoryEntry: ...

    def delete(self, key: str | int) -> MemoryEntry | None: ...

    def close(self) -> None: ...


@runtime_checkable
class RunLogProtocol(Protocol):
    """One user's run log: a record per run of a trigger or of `agents run`, newest first,
    beside the sessions (`$BIRDIE_HOME/sessions/<user>/runs.db`, or a table of the shared
    PostgreSQL database)."""

    user: str

    def save(self, record: RunRecord) -> None: ...  # insert or replace, by run_id

    def get(self, run_id: str) -> RunRecord | None: ...

    def for_session(self, session_id: str) -> RunRecord | None: ...

    def list(self, agent: str | None = None, limit: int = 50) -> builtins.list[RunRecord]: ...

    def last(self, trigger_key: str) -> RunRecord | None: ...

    # True for exactly one caller per (trigger_key, fire_time), across processes and machines
    # sharing the store: what keeps two schedulers from running one firing twice.
    def claim(self, trigger_key: str, fire_time: datetime, owner: str) -> bool: ...

    def close(self) -> None: ...
