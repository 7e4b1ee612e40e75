"""The remote door's sub-agent pieces without a server: Birdie's name resolution as the
registry does it, and a served run's child items read back as the local stream's events."""

from __future__ import annotations

import pytest

from birdie_tui.agent.wire import child_to_wire
from birdie_tui.agent_files.models import AgentDef, AgentLoad
from birdie_tui.agent_files.registry import AgentRegistry
from birdie_tui.events import AgentFinished, AgentStarted, ChildEvent, UsageReported
from birdie_tui.service.remote.agents import resolve_agent
from birdie_tui.service.remote.turns import translate_part

NAMES = ["Summarizer", "summary-bot", "Reviewer", "Repeater", "Echo", "Echoer"]


@pytest.mark.parametrize("text", ["Summarizer", "summarizer", "SUMMARY-BOT", "Rev", "rep",
                                  "Re", "Echo", "echo", "Echoe", "sum", "Nobody", ""])
def test_names_resolve_as_the_agent_registry_resolves_them(text):
    """Exact, then any case, then a unique prefix; an ambiguous or unknown name is None —
    the same answer as `AgentRegistry.resolve` over the same agents."""
    registry = AgentRegistry(AgentLoad(agents=[AgentDef(name=n, description="d", prompt="p")
                                               for n in NAMES]))
    assert resolve_agent(NAMES, text) == registry.resolve(text)


def test_a_served_runs_child_items_become_the_local_streams_events():
    """The custom parts of a served sub-agent call, as the SSE stream gives them, are the same
    event objects a local turn yields; an unknown child item is dropped."""
    child = "t/agent/Echoer-00000000"
    sent = [AgentStarted(child=child, call_id="c1", name="Echoer", inputs={"text": "hi"}),
            ChildEvent(child=child, agent="Echoer", event=UsageReported(5, 6, 2)),
            AgentFinished(child=child, call_id="c1", name="Echoer", status="done",
                          input_tokens=5, output_tokens=6, calls=1)]
    got = [event for item in sent
           for event in translate_part("custom", {"child": child_to_wire(item)})]
    assert got == sent
    assert list(translate_part("custom", {"child": {"type": "agent_pause"}})) == []
