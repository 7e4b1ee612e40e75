"""Birdie's events reach the UI as one message type, in order, and every type of the
vocabulary has a handler (Harlequin's habit: pin the exact sequence of messages). Over both
doors: the fake door sends a turn's events in the engine's order."""

from __future__ import annotations

from itertools import groupby

import pytest

from birdie_tui import events as vocab
from birdie_tui.tui.messages import EngineEvent
from birdie_tui.tui.turn_view import TurnView
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock

from .conftest import send, wait_ready, wait_turn


def samples() -> list[vocab.Event]:
    """One event of every class of the vocabulary, as a turn or the door would send it."""
    return [
        vocab.SkillsInjected(), vocab.TokenStreamed("hi"),
        vocab.ToolCallStarted("c1", "echo_text", {"text": "x"}),
        vocab.AgentStarted("k1", "c1", "Echoer", {"text": "x"}),
        vocab.ChildEvent("k1", "Echoer", vocab.TokenStreamed("child")),
        vocab.AgentFinished("k1", "c1", "Echoer", "done", 3, 2, 1),
        vocab.ToolFinished("c1", "echo_text", "x", False),
        vocab.ApprovalDecided("c1", "echo_text", "approved"), vocab.UsageReported(3, 2),
        vocab.TurnDone("hi"), vocab.TurnError("boom"), vocab.TurnCancelled(),
        vocab.SkillsChanged(), vocab.SkillsReloaded("Rescanned."), vocab.AgentsChanged(),
        vocab.StatusChanged(),
        vocab.TotalsChanged(1, 2), vocab.MemoryChanged(0), vocab.McpFailed("s", "e"),
        vocab.Recovered("moved aside"), vocab.SessionBusy("waits"),
        vocab.Compacted(messages=2, tokens_before=100, tokens_after=10, auto=True),
    ]


def test_the_samples_cover_the_vocabulary():
    """The test below posts every class of `birdie_tui.events` but `session` (which it
    posts with the open session's id): a new event class must be added to it."""
    assert {type(e) for e in samples()} | {vocab.SessionOpened} == \
        set(vocab.event_types().values())
    assert set(TurnView.EVENTS) < {type(e) for e in samples()}


@pytest.mark.app
async def test_every_event_class_has_a_handler(any_app):
    """A new event in the core vocabulary cannot be silently dropped by the UI: every class
    is dispatched by `match` to a handler, none reaches the "cannot show" report."""
    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        session = vocab.SessionOpened(id=app.birdie.status().session_id, new=False)
        for event in [session, *samples()]:
            app.main.post_message(EngineEvent(event))
            await pilot.pause()
        await pilot.pause(0.2)
        assert not [n.message for n in app._notifications if "cannot show" in n.message]
        assert app.main.is_attached and app.is_running


@pytest.mark.app
async def test_the_exact_messages_of_a_turn_with_a_tool_call(any_app):
    """Prompt report, the first call's usage and its tool call, the result, a second prompt
    report, the streamed answer and its usage, done, then the change events — each once, in
    this order."""
    app = any_app()
    seen = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await wait_ready(pilot, app)
        seen.clear()
        await send(pilot, app, 'call echo_text {"text": "sequence"}')
        await wait_turn(pilot, app)
        events = [x.event for x in seen if isinstance(x, EngineEvent)]
        # runs of tokens collapse to one entry: their number depends on the tokenizer
        kinds = [kind for kind, _ in groupby(e.type for e in events)]
        # a model call's usage closes its stream, before the node hands over its tool call
        # each completed call moves the ledger ("totals"); once the turn is recorded the
        # front door says what changed: totals, status (turns, title), skills (MCP servers)
        assert kinds == ["injected", "usage", "totals", "tool_call", "tool_result", "injected",
                         "token", "usage", "totals", "done", "totals", "status", "skills"]
        call = next(e for e in events if e.type == "tool_call")
        result = next(e for e in events if e.type == "tool_result")
        assert (call.name, call.args, result.id, result.content) == (
            "echo_text", {"text": "sequence"}, call.id, "sequence")
        assert app.query_one(ToolBlock).call_id == call.id


@pytest.mark.app
async def test_an_unknown_event_is_reported_not_dropped(any_app):
    """An event type with no handler is reported in a notification, not silently dropped."""
    from dataclasses import dataclass
    from typing import ClassVar

    @dataclass
    class Mystery:
        type: ClassVar[str] = "mystery"

    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        app.main.post_message(EngineEvent(Mystery()))
        await pilot.pause(0.2)
        assert any("mystery" in n.message for n in app._notifications)
