"""The `injected` event as JSON (agent/wire.py): what a served graph streams and a remote
client reads back."""

from __future__ import annotations

import json

from birdie_tui.events import InjectedSkill, SkillsInjected
from birdie_tui.agent.provenance import CallContext, Segment
from birdie_tui.agent.wire import injected_from_wire, injected_to_wire


def full_event() -> SkillsInjected:
    segments = [Segment("base", tokens=40, digest="abc"),
                Segment("trigger", "deploy", tokens=12, detail="ship it", digest="def")]
    return SkillsInjected(
        skills=[InjectedSkill("deploy", "trigger:ship it", 12, body="Deploy with care.\n",
                              detail="loaded at turn 2 · 3 more turns of lease")],
        catalog_tokens=31, memory=["the user likes tea"], prompt_tokens=83,
        segments=segments,
        context=CallContext(turn=3, call=2, segments=(*segments, Segment("history", tokens=9)),
                            evicted=(("old", "expired"),), not_loaded=("a", "b"),
                            message_id="m-1", history_dropped=4, not_loaded_count=0))


def test_the_round_trip_through_json_is_exact():
    """Every field survives to_wire -> JSON text -> from_wire, provenance included (also
    the fields the stored form folds, such as a zero not_loaded_count beside names)."""
    event = full_event()
    data = json.loads(json.dumps(injected_to_wire(event)))
    assert injected_from_wire(data) == event
    assert injected_to_wire(injected_from_wire(data)) == data


def test_an_event_without_provenance_round_trips():
    """An event with no call context (and empty lists) comes back as it went."""
    event = SkillsInjected(catalog_tokens=5, prompt_tokens=7)
    data = json.loads(json.dumps(injected_to_wire(event)))
    assert data["context"] is None
    assert injected_from_wire(data) == event
