"""The provenance of one model call's prompt: every segment it held, why, and its size.

A `CallContext` is recorded by the agent node for each model call and kept on the AI message
that call produced (`response_metadata[RECORD_KEY]`), so a resumed session — or one served by a
remote graph — can show any past turn exactly as it was. Records are plain dicts there
(`to_dict` / `from_dict`), small: names, reasons and token estimates, never bodies (a body is
shown from the live `injected` event or, for a past turn, from the skill as it is now).

Segment kinds, in prompt order:
  stable   tools · base · system_prompt · catalog · always · project
  volatile trigger · loaded · summary · memory · mention · history
(a `mention` is a file or folder the user @-mentioned, attached to a message of the history
sent: its tokens are counted there, not again in `history`)
The stable ones come first so a provider's prompt cache can reuse them; `stable_digest` says
whether that prefix changed between two calls.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from birdie_tui.mentions.attach import attachments
from birdie_tui.providers.tokens import estimate_tokens
from birdie_tui.text import content_text

RECORD_KEY = "birdie_context"
# A stored record names the skills not loaded only up to this many (500 enabled knowledge skills
# would add ~8 KB to every AI message); past it, only their number is kept.
STORED_NOT_LOADED = 30

STABLE_KINDS = ("tools", "base", "system_prompt", "catalog", "always", "project")
VOLATILE_KINDS = ("trigger", "loaded", "summary", "memory", "mention", "history")
KINDS = STABLE_KINDS + VOLATILE_KINDS


def digest(text: str) -> str:
    """A short fingerprint of a segment's text (to tell "same body" from "edited body")."""
    return hashlib.blake2s(text.encode("utf-8", "replace"), digest_size=6).hexdigest()


@dataclass(frozen=True)
class Segment:
    kind: str  # one of KINDS
    name: str = ""  # skill name, file path, ...
    tokens: int = 0  # estimated
    # trigger: the phrase as written in the skill ("remote server"); loaded: "loaded at turn 3 ·
    # 2 more turns of lease"; catalog: "7 skills"; memory: "2 notes"; history: "12 messages ·
    # 30 older not sent (budget) · 40 summarised"; mention: "lines 10-40 of 310 · turn 2"
    detail: str = ""
    digest: str = ""

    @property
    def stable(self) -> bool:
        return self.kind in STABLE_KINDS

    @property
    def key(self) -> tuple[str, str]:
        """What identifies the segment across calls (a changed body keeps its key)."""
        return (self.kind, self.name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "tokens": self.tokens}
        for name in ("name", "detail", "digest"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Segment:
        return cls(kind=str(data.get("kind", "")), name=str(data.get("name", "")),
                   tokens=int(data.get("tokens", 0) or 0), detail=str(data.get("detail", "")),
                   digest=str(data.get("digest", "")))


@dataclass(frozen=True)
class CallContext:
    """What one model call was given."""

    turn: int  # 1-based user turn of the session
    call: int  # 1-based model call within the turn
    segments: tuple[Segment, ...] = ()
    evicted: tuple[tuple[str, str], ...] = ()  # (skill, "expired"|"lru") left at this call
    not_loaded: tuple[str, ...] = ()  # enabled knowledge skills whose body was not sent
    message_id: str = ""  # the AI message this call produced, when known
    history_dropped: int = 0  # messages the history budget left out
    not_loaded_count: int = 0  # how many were not loaded (also when the names were not kept)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.segments)

    @property
    def stable_digest(self) -> str:
        """Fingerprint of the stable prefix (what prompt caching relies on)."""
        return digest("\n".join(f"{s.kind}:{s.name}:{s.digest}" for s in self.segments
                                if s.stable))

    def to_dict(self, *, stored: bool = False) -> dict[str, Any]:
        """Plain JSON; `stored` (on the message) keeps at most `STORED_NOT_LOADED` names."""
        out: dict[str, Any] = {"turn": self.turn, "call": self.call,
                               "segments": [s.to_dict() for s in self.segments]}
        if self.evicted:
            out["evicted"] = [list(e) for e in self.evicted]
        count = max(self.not_loaded_count, len(self.not_loaded))
        if self.not_loaded and not (stored and len(self.not_loaded) > STORED_NOT_LOADED):
            out["not_loaded"] = list(self.not_loaded)
        if count:
            out["not_loaded_count"] = count
        if self.message_id and not stored:
            out["message_id"] = self.message_id
        if self.history_dropped:
            out["history_dropped"] = self.history_dropped
        return out

    def stored(self) -> str:
        """The record as kept on its message: compact JSON (see `history_records`)."""
        return json.dumps(self.to_dict(stored=True), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CallContext:
        return cls(
            turn=int(data.get("turn", 0) or 0), call=int(data.get("call", 0) or 0),
            segments=tuple(Segment.from_dict(s) for s in data.get("segments") or ()
                           if isinstance(s, dict)),
            evicted=tuple((str(e[0]), str(e[1])) for e in data.get("evicted") or ()
                          if isinstance(e, (list, tuple)) and len(e) == 2),
            not_loaded=tuple(str(n) for n in data.get("not_loaded") or ()),
            message_id=str(data.get("message_id", "")),
            history_dropped=int(data.get("history_dropped", 0) or 0),
            not_loaded_count=int(data.get("not_loaded_count", 0) or 0),
        )


@dataclass(frozen=True)
class ContextChange:
    """One call's prompt against the one before it."""

    entered: tuple[Segment, ...] = ()
    left: tuple[Segment, ...] = ()
    changed: tuple[Segment, ...] = ()  # same segment, different text (an edited body...)
    stayed: tuple[Segment, ...] = ()
    prefix_changed: bool = False  # the stable prefix differs: a prompt cache starts over
    first: bool = False  # nothing to compare with


def compare(current: CallContext, previous: CallContext | None) -> ContextChange:
    """What entered, left, changed and stayed. The history segment is not compared (it
    grows every call by nature)."""
    if previous is None:
        return ContextChange(entered=tuple(s for s in current.segments if s.kind != "history"),
                             first=True)
    before = {s.key: s for s in previous.segments if s.kind != "history"}
    now = {s.key: s for s in current.segments if s.kind != "history"}
    return ContextChange(
        entered=tuple(s for k, s in now.items() if k not in before),
        left=tuple(s for k, s in before.items() if k not in now),
        changed=tuple(s for k, s in now.items() if k in before and before[k].digest != s.digest),
        stayed=tuple(s for k, s in now.items() if k in before and before[k].digest == s.digest),
        prefix_changed=current.stable_digest != previous.stable_digest,
    )


def mention_segments(sent: Sequence[Any], turn: int) -> list[Segment]:
    """A segment per file or folder @-mentioned in the user messages sent with this call (the
    front end attached them, `birdie_tui.mentions`), named as mentioned."""
    out: list[Segment] = []
    asked = turn - sum(1 for m in sent if m.type == "human")
    for msg in sent:
        if msg.type != "human":
            continue
        asked += 1
        for found in attachments(content_text(msg.content)):
            detail = " · ".join(p for p in (found.detail, "" if asked == turn
                                            else f"turn {asked}") if p)
            out.append(Segment("mention", name=found.name + ("/" if found.kind == "folder"
                                                             else ""),
                               tokens=estimate_tokens(found.text), detail=detail,
                               digest=digest(found.text)))
    return out


def history_records(messages: Iterable[Any]) -> list[CallContext]:
    """The records kept on a history's AI messages, oldest first (a malformed one is skipped,
    never fatal)."""
    out: list[CallContext] = []
    for msg in messages:
        data = (getattr(msg, "response_metadata", None) or {}).get(RECORD_KEY) \
            if getattr(msg, "type", "") == "ai" else None
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                continue
        if isinstance(data, dict):
            try:
                out.append(CallContext.from_dict({**data, "message_id": msg.id or ""}))
            except (TypeError, ValueError, IndexError):
                continue
    return out
