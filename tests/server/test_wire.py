"""The `injected` event and the sub-agents' events as JSON (agent/wire.py): what a served
graph streams and a remote client reads back."""

from __future__ import annotations

import json

from birdie_tui.events import (
    AgentFinished,
    AgentStarted,
    ApprovalDecided,
    ChildEvent,
    InjectedSkill,
    SkillsInjected,
    TokenStreamed,
    ToolCallStarted,
    ToolFinished,
    UsageReported,
)
from birdie_tui.agent.provenance import CallContext, Segment
from birdie_tui.agent.wire import (
    child_from_wire,
    child_to_wire,
    injected_from_wire,
    injected_to_wire,
    wired_writer,
)


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


# ------------------------------------------------------------ sub-agents' events
def sub_agent_events() -> list:
    child = "t-1/agent/Echoer-0a1b2c3d"

    def wrapped(event):
        return ChildEvent(child=child, agent="Echoer", event=event)

    return [
        AgentStarted(child=child, call_id="call_1", name="Echoer", inputs={"text": "hi", "n": 2}),
        wrapped(full_event()),
        wrapped(TokenStreamed("partial")),
        wrapped(ToolCallStarted(id="c2", name="write_file", args={"path": "a.txt"})),
        wrapped(ApprovalDecided(id="c2", name="write_file", decision="denied")),
        wrapped(ApprovalDecided(id="c3", name="bash", decision="pending", args={"cmd": "ls"})),
        wrapped(ToolFinished(id="c2", name="write_file", content="Not run.", error=True)),
        wrapped(UsageReported(input_tokens=63, output_tokens=76, cached_input_tokens=40)),
        AgentFinished(child=child, call_id="call_1", name="Echoer", status="error",
                      input_tokens=63, output_tokens=76, calls=1, error="stopped"),
    ]


def test_the_three_sub_agent_events_round_trip_through_json_exactly():
    """agent_start, every kind of child event (the injected one with its provenance, the
    usage with its cached tokens that stream-json leaves out) and agent_end come back equal."""
    for event in sub_agent_events():
        data = json.loads(json.dumps(child_to_wire(event)))
        assert child_from_wire(data) == event, event
        assert child_to_wire(child_from_wire(data)) == data


def test_unknown_or_malformed_child_items_are_dropped_not_raised():
    """A newer server's kind, a child event missing its inner event, a field missing: None."""
    assert child_from_wire({"type": "agent_pause", "child": "x"}) is None
    assert child_from_wire({"type": "child", "child": "x", "agent": "A"}) is None
    assert child_from_wire({"type": "child", "event": {"type": "what"}}) is None
    assert child_from_wire({"type": "agent_start", "child": "x"}) is None
    assert child_from_wire("agent_start") is None


def test_the_wired_writer_turns_only_child_items_into_json():
    """Served, the runner's `{"child": event}` items go out as JSON; other items untouched."""
    out: list = []
    write = wired_writer(out.append)
    started = sub_agent_events()[0]
    write({"child": started})
    write({"approval": {"id": "c1"}})
    assert out == [{"child": child_to_wire(started)}, {"approval": {"id": "c1"}}]
    assert json.loads(json.dumps(out[0])) == out[0]
