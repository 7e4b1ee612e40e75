"""The `injected` event as plain JSON, for a graph served over the network.

Locally the agent node streams the `SkillsInjected` object itself; a LangGraph server sends
custom stream events as JSON, so there it streams `injected_to_wire(event)` and a remote
client turns it back with `injected_from_wire`. The round trip is exact (every field, the
bodies and the call's provenance included): a remote `#context` panel shows what a local one
would.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from birdie_tui.events import InjectedSkill, SkillsInjected
from birdie_tui.agent.provenance import CallContext, Segment

__all__ = ["injected_from_wire", "injected_to_wire"]


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
