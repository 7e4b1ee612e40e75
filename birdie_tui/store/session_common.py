"""What both session stores (`sessions.SessionStore`, `pg.sessions.PgSessionStore`) share:
which sessions a list leaves out as empty, and the bookkeeping that counts a turn or sets a
title before `save` — one home, so the two stores cannot drift apart."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TypeVar

from .session_meta import TOKEN_LOG_LIMIT, SessionMeta, SessionSummary, _as_int

__all__ = ["Listed", "SessionStoreBase", "is_empty", "without_empty"]

# What a list holds: full sessions, or the summaries a listing shows.
Listed = TypeVar("Listed", SessionMeta, SessionSummary)


def is_empty(meta: SessionMeta | SessionSummary, threads: set[str] | None) -> bool:
    """Empty (no turn, no title) and without checkpointed history."""
    # An unreadable database: keep the session listed rather than hide a conversation.
    return meta.is_empty and threads is not None and meta.id not in threads


def without_empty(metas: list[Listed], include_empty: bool, keep: str | None,
                  threads_of: Callable[[list[str]], set[str] | None]) -> list[Listed]:
    """`metas` less the empty sessions (no turn, no title and no history), unless
    `include_empty`; `keep` always stays. `threads_of(ids)` says which of them have history
    (None: it cannot be told, and then nothing is hidden); it is asked only when some session
    looks empty, and only about those."""
    if include_empty:
        return metas
    looks_empty = [m for m in metas if m.is_empty and m.id != keep]
    if not looks_empty:
        return metas
    threads = threads_of([m.id for m in looks_empty])
    empty = {m.id for m in looks_empty if is_empty(m, threads)}
    return [m for m in metas if m.id not in empty] if empty else metas


class SessionStoreBase(ABC):
    """The bookkeeping both stores do the same way; each store writes with its own `save`."""

    @abstractmethod
    def save(self, meta: SessionMeta) -> None: ...

    def record_turn(self, meta: SessionMeta, input_tokens: int, output_tokens: int, *,
                    carried: tuple[int, int] = (0, 0), cached: int = 0,
                    cost: float | None = None, model: str | None = None) -> SessionMeta:
        """Count one turn and its token usage, then save. ``carried`` tokens (of a turn taken
        back for a retry) are already in the totals: they only join this turn's log entry.
        ``cost`` None (a price unknown) makes the session's recorded cost unknown too. The
        turn's own figures (with ``model``, the label of the model that ran it) join
        ``turn_costs``, which `/cost` lists."""
        inp, out = _as_int(input_tokens), _as_int(output_tokens)
        if meta.cost_usd is None and not (meta.input_tokens or meta.output_tokens):
            meta.cost_usd = 0.0  # a session that starts with prices recorded
        meta.cost_usd = None if cost is None or meta.cost_usd is None else meta.cost_usd + cost
        meta.turns += 1
        meta.input_tokens += inp
        meta.output_tokens += out
        meta.cached_input_tokens += _as_int(cached)
        meta.token_log.append({"input": inp + _as_int(carried[0]),
                               "output": out + _as_int(carried[1])})
        del meta.token_log[:-TOKEN_LOG_LIMIT]
        meta.turn_costs.append({"turn": meta.turns, "model": model or "", "input": inp,
                                "cached": _as_int(cached), "output": out, "cost": cost})
        del meta.turn_costs[:-TOKEN_LOG_LIMIT]
        self.save(meta)
        return meta

    def set_title(self, meta: SessionMeta, title: str | None) -> SessionMeta:
        """Set (or with None/blank, clear) the title, then save."""
        cleaned = " ".join((title or "").split())
        meta.title = cleaned or None
        self.save(meta)
        return meta
