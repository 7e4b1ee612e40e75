"""One session's metadata (`sessions/<user>/<id>.json`): Birdie 0.1.5's keys, ours (title,
tokens, cost), and any unknown keys, kept as they were. Reading never fails on a mistyped
value: it gets its default.

Birdie 0.15 adds its own totals, ``total_input_tokens``/``total_output_tokens``/``total_cost_usd``
(and ``approved_skills`` and other keys, kept in ``extra``). Totals only grow, so a session's
token totals are the larger of ours and those; its cost is ours, else Birdie's when it has one.
A file that carries Birdie's totals gets them written back updated, so Birdie reads them right.

``history_counted`` says how far the counts have followed the checkpointed history: the id of the
last message counted and the ``turns`` value that went with it (see `agent.accounting`).

A loaded session remembers the dict it was read as (``base``), so that saving it changes on disk
only the keys changed in memory (`store.session_merge`): another process may have counted a turn
or toggled a skill since."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from typing import Any, NamedTuple

__all__ = ["TOKEN_LOG_LIMIT", "SessionMeta", "SessionSummary", "str_list"]

TOKEN_LOG_LIMIT = 200
_KNOWN_KEYS = (
    "id", "user_id", "created_at", "updated_at", "turns", "enabled_skills", "disabled_skills",
    "title", "input_tokens", "output_tokens", "token_log", "retry_carry",
    "cached_input_tokens", "cost_usd", "turn_costs", "history_counted",
)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _as_int(value: Any) -> int:
    if type(value) is int:  # the usual case first: a session's logs hold ~1,000 of them
        return value if value > 0 else 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value.is_integer():
        return max(int(value), 0)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def str_list(value: Any) -> list[str]:
    """A session (or thread metadata) value read as a list of strings: anything else is []
    and non-strings are left out (a hand-edited or foreign file never breaks a reader)."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, str)]


def _as_token_log(value: Any) -> list[dict[str, int]]:
    if not isinstance(value, list):
        return []
    log = [
        {"input": _as_int(e.get("input")), "output": _as_int(e.get("output"))}
        for e in value
        if isinstance(e, dict)
    ]
    return log[-TOKEN_LOG_LIMIT:]


def _as_cost(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def _as_turn_costs(value: Any) -> list[dict[str, Any]]:
    """Per-turn records (`/cost`): turn, model, input, cached, output, cost (None: unknown)."""
    if not isinstance(value, list):
        return []
    return [{"turn": _as_int(e.get("turn")),
             "model": e.get("model") if isinstance(e.get("model"), str) else "",
             "input": _as_int(e.get("input")), "cached": _as_int(e.get("cached")),
             "output": _as_int(e.get("output")), "cost": _as_cost(e.get("cost"))}
            for e in value if isinstance(e, dict)][-TOKEN_LOG_LIMIT:]


@dataclass
class SessionMeta:
    """One session's metadata: Birdie 0.1.5's keys, our title/token keys, and unknown keys in ``extra``."""

    id: str
    user_id: str
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    turns: int = 0
    enabled_skills: list[str] = field(default_factory=list)
    disabled_skills: list[str] = field(default_factory=list)
    title: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    token_log: list[dict[str, int]] = field(default_factory=list)
    # Of input_tokens, how many were read from the vendor's prompt cache (billed lower).
    cached_input_tokens: int = 0
    # What the recorded calls cost at their model's list price when they ran; None when a
    # price was unknown or the session predates it (then it is estimated at today's rate).
    cost_usd: float | None = None
    # One record per recorded turn (model, tokens, cost), oldest first; a retried turn keeps
    # its record and the retry adds one under the same turn number. Absent in older sessions.
    turn_costs: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    # Tokens of a turn taken back by /retry, counted in the totals, not yet in token_log.
    retry_carry: dict[str, int] | None = None
    # How far the counts follow the history: {"through": message id or None, "turns": int}.
    # None: not known (a session from before, or written by Birdie): nothing is recounted.
    counted: dict[str, Any] | None = None
    # False for a new session not yet written (its id is provisional); never stored on disk.
    saved: bool = True
    # What the file held when this object last read or wrote it (see `base`); not stored.
    _raw: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    _base: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def base(self) -> dict[str, Any] | None:
        """The `to_dict` form this object last had in common with the file (None: never read
        or written), computed lazily: listing thousands of sessions never pays for it."""
        if self._base is None and self._raw is not None:
            self._base = SessionMeta.from_dict(self._raw, id=self.id,
                                               user_id=self.user_id).to_dict()
        return self._base

    def mark_written(self, data: dict[str, Any]) -> None:
        """`data` (this object's `to_dict`) is now what it has in common with the file."""
        self._raw, self._base = None, data

    def copy(self) -> SessionMeta:
        """An equal session sharing no list or dict with this one (but `_raw`, which is never
        changed): what `from_dict` of the same file gives, without parsing it again."""
        return replace(
            self, enabled_skills=list(self.enabled_skills),
            disabled_skills=list(self.disabled_skills),
            token_log=[dict(e) for e in self.token_log],
            turn_costs=[dict(e) for e in self.turn_costs],
            extra=copy.deepcopy(self.extra),
            retry_carry=None if self.retry_carry is None else dict(self.retry_carry),
            counted=None if self.counted is None else dict(self.counted), _base=None)

    def absorb(self, other: SessionMeta) -> None:
        """Take every field of `other` (the file as just read), in place: whoever holds this
        object sees the fresh values."""
        for f in fields(self):
            if f.name != "saved":
                setattr(self, f.name, getattr(other, f.name))

    @property
    def is_empty(self) -> bool:
        """No turn and no title: nothing to miss (the checkpoint history may still disagree)."""
        return self.turns == 0 and self.title is None

    def summary(self) -> SessionSummary:
        return SessionSummary(self.id, self.user_id, self.created_at, self.updated_at,
                              self.turns, self.title, self.input_tokens, self.output_tokens)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "user_id": self.user_id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "turns": self.turns,
            "enabled_skills": list(self.enabled_skills),
            "disabled_skills": list(self.disabled_skills),
        }
        data.update({k: v for k, v in self.extra.items() if k not in _KNOWN_KEYS})
        data["title"] = self.title
        data["input_tokens"] = self.input_tokens
        data["output_tokens"] = self.output_tokens
        data["token_log"] = [dict(e) for e in self.token_log[-TOKEN_LOG_LIMIT:]]
        if self.retry_carry:
            data["retry_carry"] = dict(self.retry_carry)
        if self.cached_input_tokens:
            data["cached_input_tokens"] = self.cached_input_tokens
        if self.cost_usd is not None:
            data["cost_usd"] = round(self.cost_usd, 8)
        if self.turn_costs:
            data["turn_costs"] = [
                {**e, "cost": None if e.get("cost") is None else round(e["cost"], 8)}
                for e in self.turn_costs[-TOKEN_LOG_LIMIT:]]
        if self.counted is not None:
            data["history_counted"] = dict(self.counted)
        # Birdie 0.15's totals, where the file has them (they stay at their place in the file).
        for key, value in (("total_input_tokens", self.input_tokens),
                           ("total_output_tokens", self.output_tokens),
                           ("total_cost_usd", self.cost_usd)):
            if key in data and value is not None:
                data[key] = round(value, 8) if isinstance(value, float) else value
        return data

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], *, id: str | None = None, user_id: str | None = None
    ) -> SessionMeta:
        """Build from a parsed file; missing or mistyped keys get defaults, unknown keys go to extra.

        ``id``/``user_id`` (from the file's name and folder) win over the values inside the file.
        """
        created, updated, turns, title, input_tokens, output_tokens = _list_fields(data)
        file_id = v if isinstance(v := data.get("id"), str) else ""
        file_user = u if isinstance(u := data.get("user_id"), str) else ""
        carry = data.get("retry_carry")
        return cls(
            id=id or file_id,
            user_id=user_id or file_user,
            created_at=created,
            updated_at=updated,
            turns=turns,
            enabled_skills=str_list(data.get("enabled_skills")),
            disabled_skills=str_list(data.get("disabled_skills")),
            title=title,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            token_log=_as_token_log(data.get("token_log")),
            retry_carry=_as_token_log([carry])[0] if isinstance(carry, dict) else None,
            cached_input_tokens=_as_int(data.get("cached_input_tokens")),
            turn_costs=_as_turn_costs(data.get("turn_costs")),
            cost_usd=_as_cost(data["cost_usd"]) if "cost_usd" in data else _birdie_cost(data),
            # A copy: a list changed in place in memory must not change `base` with it.
            extra={k: copy.deepcopy(v) for k, v in data.items() if k not in _KNOWN_KEYS},
            counted=_as_counted(data.get("history_counted")),
            _raw=data,
        )


def _as_counted(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    through = value.get("through")
    return {"through": through if isinstance(through, str) and through else None,
            "turns": _as_int(value.get("turns"))}


def _birdie_cost(data: dict[str, Any]) -> float | None:
    """Birdie 0.15's ``total_cost_usd``: only costs an agent reported, so 0 means unknown."""
    cost = _as_cost(data.get("total_cost_usd"))
    return cost if cost else None


def _list_fields(data: dict[str, Any]) -> tuple[str, str, int, str | None, int, int]:
    """created_at, updated_at, turns, title, input and output tokens, by `from_dict`'s rules."""
    created = data.get("created_at")
    created = created if isinstance(created, str) and created else _now()
    updated = data.get("updated_at")
    title = data.get("title")
    return (created, updated if isinstance(updated, str) and updated else created,
            _as_int(data.get("turns")), title if isinstance(title, str) and title.strip() else None,
            max(_as_int(data.get("input_tokens")), _as_int(data.get("total_input_tokens"))),
            max(_as_int(data.get("output_tokens")), _as_int(data.get("total_output_tokens"))))


class SessionSummary(NamedTuple):
    """What a session list shows of a session (the browser, `sessions list`): read-only, so
    it can be served from the index cache and can never be saved back over the full file.
    (A named tuple: ten thousand of them are built per listing.)"""

    id: str
    user_id: str
    created_at: str
    updated_at: str
    turns: int
    title: str | None
    input_tokens: int
    output_tokens: int
    # Who last wrote the session (a shared database: `store.pg`); empty in the embedded store.
    last_user: str = ""
    last_host: str = ""

    @property
    def is_empty(self) -> bool:
        """The same rule as `SessionMeta.is_empty`."""
        return self.turns == 0 and self.title is None

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, id: str, user_id: str) -> SessionSummary:
        """What `SessionMeta.from_dict(data, ...).summary()` gives, without reading the rest."""
        return cls(id, user_id, *_list_fields(data))


def session_row(meta: SessionMeta | SessionSummary) -> dict[str, Any]:
    """A session as `sessions list --json` and `sessions export` show it."""
    return {"id": meta.id, "title": meta.title, "created_at": meta.created_at,
            "updated_at": meta.updated_at, "turns": meta.turns,
            "input_tokens": meta.input_tokens, "output_tokens": meta.output_tokens}
