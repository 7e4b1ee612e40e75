"""The event vocabulary (`birdie_tui.events`): closed unions of frozen dataclasses, cheap to
import, with the JSON form stream-json writes (docs/contracts.md, stream-json events)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import get_args

import pytest

from birdie_tui import events
from birdie_tui.agent.provenance import CallContext, Segment


def test_the_unions_are_the_whole_vocabulary():
    """Turn events and change events are closed unions; together they are every event, and
    only `session` is both (a turn's first line, and the news of a switch)."""
    turn, change = set(get_args(events.TurnEvent)), set(get_args(events.ChangeEvent))
    assert set(get_args(events.Event)) == turn | change
    assert turn & change == {events.SessionOpened}
    everything = {cls for cls in vars(events).values()
                  if isinstance(cls, type) and issubclass(cls, events.BaseEvent)
                  and cls is not events.BaseEvent}
    assert everything == turn | change
    assert set(events.event_types().values()) == everything
    assert len(events.event_types()) == len(everything)  # one `type` per class


@pytest.mark.parametrize("cls", sorted(events.event_types().values(), key=lambda c: c.type))
def test_every_event_is_frozen(cls):
    """No front end can change an event another one sees: assigning a field raises."""
    required = {f.name: "x" for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING}
    event = cls(**required)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.extra = 1
    for f in dataclasses.fields(cls):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, f.name, None)


def test_a_changed_copy_keeps_the_json_form():
    """The agent node adds the call's record with `dataclasses.replace`; the copy's JSON has
    the record and the original is untouched."""
    report = events.SkillsInjected(skills=[events.InjectedSkill("deploy", "loaded", 5)])
    record = CallContext(turn=2, call=1, segments=(Segment("base", tokens=3),),
                         evicted=(("old", "lru"),), not_loaded=("spare",))
    copy = dataclasses.replace(report, context=record)
    assert report.to_dict() == {"type": "injected",
                                "skills": [{"name": "deploy", "reason": "loaded", "tokens": 5}]}
    assert copy.to_dict() == {
        "type": "injected", "skills": [{"name": "deploy", "reason": "loaded", "tokens": 5}],
        "turn": 2, "call": 1, "segments": [{"kind": "base", "tokens": 3}],
        "evicted": [{"name": "old", "why": "lru"}], "not_loaded": ["spare"]}


def test_the_vocabulary_has_one_home():
    """Only `birdie_tui.events` defines the events: the engine's old module name is gone, so
    no second import path can hand out a look-alike."""
    import importlib.util

    assert importlib.util.find_spec("birdie_tui.agent.events") is None


def test_importing_the_events_loads_nothing_heavy():
    """The vocabulary imports no engine, LangChain, Textual or vendor SDK."""
    code = ("import sys, birdie_tui.events\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', "
            "'langchain_core', 'textual', 'openai', 'anthropic', 'mistralai') "
            "or m.startswith('birdie_tui.agent')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
