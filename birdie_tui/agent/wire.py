"""The custom stream's event objects as plain JSON, for a graph served over the network.

Locally the agent node streams the `SkillsInjected` object itself, and the sub-agent runner its
`AgentStarted`, `ChildEvent` and `AgentFinished` objects; a LangGraph server sends custom
stream events as JSON, so there they are streamed as `injected_to_wire(event)` and
`child_to_wire(event)` and a remote client turns them back with `injected_from_wire` and
`child_from_wire`. The round trips are exact (every field, the bodies, the call's provenance
and the cached tokens the stream-json form leaves out): a remote front end shows what a local
one would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from birdie_tui.events import (
    AgentFinished,
    AgentStarted,
    ApprovalDecided,
    ChildEvent,
    ChildTurnEvent,
    InjectedSkill,
    SkillsInjected,
    TokenStreamed,
    ToolCallStarted,
    ToolFinished,
    UsageReported,
)
from birdie_tui.agent.provenance import CallContext, Segment

__all__ = ["child_from_wire", "child_to_wire", "injected_from_wire", "injected_to_wire",
           "wired_writer"]

SubAgentEvent = AgentStarted | AgentFinished | ChildEvent
# A child's events by their `type`; `injected` has its own converters.
_CHILD_TURN: dict[str, type[Any]] = {cls.type: cls for cls in (
    TokenStreamed, ToolCallStarted, ToolFinished, ApprovalDecided, UsageReported)}


def injected_to_wire(event: SkillsInjected) -> dict[str, Any]:
    """Every field of the event as JSON-ready dicts, lists and scalars."""
    return {
        "skills": [asdict(skill) for skill in event.skills],
        "catalog_tokens": event.catalog_tokens,
        "memory": list(event.memory),
        "prompt_tokens": event.prompt_tokens,
        "segments": [asdict(seg) for seg in event.segments],
        "context": _context_to_wire(event.context) if event.context is not None else None,
    }


def injected_from_wire(data: dict[str, Any]) -> SkillsInjected:
    """The event `injected_to_wire` was given (missing keys take their defaults)."""
    context = data.get("context")
    return SkillsInjected(
        skills=[InjectedSkill(**skill) for skill in data.get("skills") or ()],
        catalog_tokens=int(data.get("catalog_tokens") or 0),
        memory=[str(note) for note in data.get("memory") or ()],
        prompt_tokens=int(data.get("prompt_tokens") or 0),
        segments=[Segment(**seg) for seg in data.get("segments") or ()],
        context=_context_from_wire(context) if isinstance(context, dict) else None,
    )


def _context_to_wire(ctx: CallContext) -> dict[str, Any]:
    # Not `CallContext.to_dict`: that one is for storage and folds `not_loaded_count`.
    out = asdict(ctx)
    out["segments"] = [asdict(seg) for seg in ctx.segments]
    out["evicted"] = [list(pair) for pair in ctx.evicted]
    out["not_loaded"] = list(ctx.not_loaded)
    return out


def _context_from_wire(data: dict[str, Any]) -> CallContext:
    return CallContext(
        turn=int(data.get("turn") or 0), call=int(data.get("call") or 0),
        segments=tuple(Segment(**seg) for seg in data.get("segments") or ()),
        evicted=tuple((str(pair[0]), str(pair[1])) for pair in data.get("evicted") or ()),
        not_loaded=tuple(str(name) for name in data.get("not_loaded") or ()),
        message_id=str(data.get("message_id") or ""),
        history_dropped=int(data.get("history_dropped") or 0),
        not_loaded_count=int(data.get("not_loaded_count") or 0),
    )


# ------------------------------------------------------------ sub-agents' events
def child_to_wire(event: SubAgentEvent) -> dict[str, Any]:
    """A sub-agent's start, end or event as JSON: every field, tagged with its `type`."""
    if isinstance(event, ChildEvent):
        return {"type": event.type, "child": event.child, "agent": event.agent,
                "event": _turn_event_to_wire(event.event)}
    return {"type": event.type, **asdict(event)}


def child_from_wire(data: Any) -> SubAgentEvent | None:
    """The event `child_to_wire` was given; None for anything else (a newer server's kind,
    a malformed item): the turn goes on without it."""
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    try:
        if kind == ChildEvent.type:
            inner = _turn_event_from_wire(data.get("event"))
            if inner is None:
                return None
            return ChildEvent(child=str(data.get("child") or ""),
                              agent=str(data.get("agent") or ""), event=inner)
        cls = {AgentStarted.type: AgentStarted, AgentFinished.type: AgentFinished}.get(str(kind))
        return _fields_of(cls, data) if cls is not None else None
    except (TypeError, ValueError):
        return None


def wired_writer(writer: Callable[[Any], None]) -> Callable[[Any], None]:
    """`writer` for a served run: a `{"child": event}` item goes out as `child_to_wire`'s
    JSON (the server's stream carries plain JSON only); any other item as it is."""

    def write(item: Any) -> None:
        event = item.get("child") if isinstance(item, dict) else None
        if isinstance(event, (AgentStarted, AgentFinished, ChildEvent)):
            item = {**item, "child": child_to_wire(event)}
        writer(item)

    return write


def _turn_event_to_wire(event: ChildTurnEvent) -> dict[str, Any]:
    if isinstance(event, SkillsInjected):
        return {"type": event.type, **injected_to_wire(event)}
    return {"type": event.type, **asdict(event)}


def _turn_event_from_wire(data: Any) -> ChildTurnEvent | None:
    if not isinstance(data, dict):
        return None
    if data.get("type") == SkillsInjected.type:
        return injected_from_wire(data)
    cls = _CHILD_TURN.get(str(data.get("type")))
    return _fields_of(cls, data) if cls is not None else None


def _fields_of(cls: type[Any], data: dict[str, Any]) -> Any:
    """`cls` from the keys of `data` it has fields for (its `type` tag and unknown keys
    left out); a missing required field raises TypeError."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})
