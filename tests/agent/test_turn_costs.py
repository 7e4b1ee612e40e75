"""What a turn does not redo: tools are bound once per model and tool set, a clean
turn reads no history back, the catalog and tool indexes are kept while the skills are the
same. Counted calls only: no wall-clock assertion."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import Field

from birdie_tui.agent.history import INTERRUPTED_TOOL_TEXT, _already_valid, _rebuild
from birdie_tui.agent.prompt import build_system_prompt
from birdie_tui.providers.offline import OfflineChatModel

from .conftest import cancel_during_tool, collect


class CountingModel(OfflineChatModel):
    """The offline model, counting `bind_tools` and keeping the tools each call was given."""

    binds: list[int] = Field(default_factory=list)  # len(tools) of each bind
    seen: list[list[dict[str, Any]]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.binds.append(len(tools))
        return super().bind_tools(tools, **kwargs)

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(kwargs.get("tools") or []))
        async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
            yield chunk


def tool_names(call_tools: list[dict[str, Any]]) -> set[str]:
    return {t["function"]["name"] for t in call_tools}


@pytest.fixture
def counting(engine) -> CountingModel:
    engine.model = CountingModel()
    return engine.model


class StateReads:
    """Counts reads of a whole history (`aget_state`) on the engine's graph."""

    def __init__(self, engine, monkeypatch):
        self.count = 0
        real = engine.host.graph.aget_state

        async def spy(*args, **kwargs):
            self.count += 1
            return await real(*args, **kwargs)

        monkeypatch.setattr(engine.host.graph, "aget_state", spy)


async def test_tools_are_bound_once_while_nothing_changes(engine, counting):
    """Three turns (one with a tool round trip) convert the tools once: the bound model is
    reused by every later call, and each call still gets every tool."""
    await collect(engine, "hello")
    await collect(engine, 'call echo_text {"text": "hi"}')
    await collect(engine, "and again")
    assert len(counting.binds) == 1
    assert len(counting.seen) == 4  # the tool round trip made two model calls
    assert all(tool_names(t) == tool_names(counting.seen[0]) for t in counting.seen)
    assert {"echo_text", "noop", "load_skill"} <= tool_names(counting.seen[0])


async def test_a_grant_toggle_rebinds_with_the_new_tool_set(engine, counting):
    """Enabling a skill binds again, with its tool; disabling it again rebinds without it."""
    await collect(engine, "hello")
    assert "hush" not in tool_names(counting.seen[-1])
    engine.set_skill_enabled("Quiet", True)
    await collect(engine, "hello")
    assert len(counting.binds) == 2 and "hush" in tool_names(counting.seen[-1])
    await collect(engine, "hello")
    assert len(counting.binds) == 2  # unchanged since the toggle: reused
    engine.set_skill_enabled("Quiet", False)
    await collect(engine, "hello")
    assert len(counting.binds) == 3 and "hush" not in tool_names(counting.seen[-1])


async def test_a_skill_reload_rebinds_with_the_new_schemas(engine, counting, skills_dir):
    """After a reload (a tool's description edited) the next call binds again and sees it."""
    await collect(engine, "hello")
    path = skills_dir / "echoer" / "SKILL.MD"
    path.write_text(path.read_text().replace("Print the given text.", "Print it, edited."))
    engine.reload_skills()
    await collect(engine, "hello")
    assert len(counting.binds) == 2
    echo = next(t for t in counting.seen[-1] if t["function"]["name"] == "echo_text")
    assert echo["function"]["description"] == "Print it, edited."


async def test_another_model_gets_its_own_binding(engine, counting):
    """Switching the model object binds the tools for the new one."""
    await collect(engine, "hello")
    other = CountingModel()
    engine.model = other
    await collect(engine, "hello")
    assert len(counting.binds) == 1 and len(other.binds) == 1


async def test_a_clean_turn_reads_no_history_back(engine, monkeypatch):
    """The first turn of a new session repairs once (after it is saved); after a clean turn,
    the next reads nothing back: its answer comes from the stream."""
    reads = StateReads(engine, monkeypatch)
    events = await collect(engine, "hello there")
    assert reads.count == 1 and not engine.history.needs_repair
    events = await collect(engine, 'call echo_text {"text": "it works"}')
    assert reads.count == 1
    assert "it works" in events[-1].text
    assert events[-1].text == (await engine.messages())[-1].content


async def test_a_turn_after_a_failed_turn_repairs_first(engine, monkeypatch):
    """A turn that fails leaves `needs_repair` set, so the next turn repairs before it runs."""
    await collect(engine, "hello")

    class Broken(OfflineChatModel):
        async def _astream(self, *args, **kwargs):
            raise RuntimeError("provider down")
            yield  # pragma: no cover

    working, engine.model = engine.model, Broken()
    events = await collect(engine, "hello?")
    assert events[-1].type == "error" and engine.history.needs_repair
    engine.model = working
    reads = StateReads(engine, monkeypatch)
    events = await collect(engine, "back?")
    assert events[-1].type == "done"
    assert reads.count == 1 and not engine.history.needs_repair


async def test_a_turn_after_a_cancel_repairs_first(engine, monkeypatch):
    """A cancelled turn repairs at once and again before the next turn, which then runs on a
    valid history; the turn after that one reads nothing back."""
    await cancel_during_tool(engine)
    assert engine.history.needs_repair
    reads = StateReads(engine, monkeypatch)
    assert (await collect(engine, "still there?"))[-1].type == "done"
    assert reads.count == 1
    assert (await collect(engine, "and now?"))[-1].type == "done"
    assert reads.count == 1


async def test_opening_a_session_marks_it_for_repair_once(engine, monkeypatch):
    """Opening (or switching to) a session repairs it then; its first turn reads nothing."""
    await collect(engine, "hello")
    sid = engine.session.id
    await engine.open_session()
    await engine.switch_session(sid)
    assert not engine.history.needs_repair
    reads = StateReads(engine, monkeypatch)
    await collect(engine, "hello again")
    assert reads.count == 0


def test_the_catalog_is_rebuilt_for_other_skill_objects(engine):
    """The prompt's catalog is kept for the same skills and built again for new objects (a
    reload), even when the names are the same."""
    allowed = engine.toolbox.allowed_skills()
    first, _ = build_system_prompt(allowed, "hi")
    assert build_system_prompt(list(allowed), "hi")[0] == first
    from dataclasses import replace

    edited = [replace(s, description="Changed!") if s.name == "Echoer" else s for s in allowed]
    prompt, _ = build_system_prompt(edited, "hi")
    assert "**Echoer**: Changed!" in prompt and "**Echoer**: Changed!" not in first


async def test_allowed_skills_and_tool_index_follow_grants_and_reloads(engine):
    """The allowed list and the tag index are recomputed after a grant change or a reload,
    and a caller changing its copy of the list changes nothing kept."""
    allowed = engine.toolbox.allowed_skills()
    allowed.clear()
    assert "Echoer" in [s.name for s in engine.toolbox.allowed_skills()]
    engine.set_skill_enabled("Echoer", False)
    names = [s.name for s in engine.toolbox.allowed_skills()]
    assert "Echoer" not in names
    by_tag = engine.toolbox.tools_by_tag(engine.toolbox.allowed_skills())
    assert "echo_text" not in by_tag.get("text", [])
    engine.set_skill_enabled("Echoer", True)
    before = engine.toolbox.allowed_skills()
    engine.reload_skills()
    after = engine.toolbox.allowed_skills()
    assert [s.name for s in after] == [s.name for s in before]
    assert all(a is not b for a, b in zip(after, before))
    assert "echo_text" in engine.toolbox.tools_by_tag(after)["text"]


def _call(call_id: str, name: str = "t") -> dict[str, Any]:
    return {"name": name, "args": {}, "id": call_id, "type": "tool_call"}


HISTORIES = {
    "plain": [HumanMessage("a"), AIMessage("b"), HumanMessage("c"), AIMessage("d")],
    "answered": [HumanMessage("a"), AIMessage("", tool_calls=[_call("1"), _call("2")]),
                 ToolMessage("x", tool_call_id="1"), ToolMessage("y", tool_call_id="2"),
                 AIMessage("ok")],
    "out of order": [HumanMessage("a"), AIMessage("", tool_calls=[_call("1"), _call("2")]),
                     ToolMessage("y", tool_call_id="2"), ToolMessage("x", tool_call_id="1")],
    "unanswered": [HumanMessage("a"), AIMessage("", tool_calls=[_call("1")])],
    "orphan": [HumanMessage("a"), ToolMessage("x", tool_call_id="9"), AIMessage("b")],
    "late answer": [HumanMessage("a"), AIMessage("", tool_calls=[_call("1")]),
                    HumanMessage("b"), ToolMessage("x", tool_call_id="1")],
    "duplicate": [HumanMessage("a"), AIMessage("", tool_calls=[_call("1")]),
                  ToolMessage("x", tool_call_id="1"), ToolMessage("x", tool_call_id="1")],
    "no call id": [HumanMessage("a"), AIMessage("", tool_calls=[_call("")]),
                   ToolMessage("x", tool_call_id="")],
    "system first": [SystemMessage("s"), HumanMessage("a"), AIMessage("b")],
    "empty": [],
}


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_the_fast_validity_check_agrees_with_the_repair(name):
    """The check that lets a valid history skip the repair never calls a history valid that
    the repair would change, and a valid one comes back as an equal, unchanged copy."""
    history = HISTORIES[name]
    fixed, changed = _rebuild(history, INTERRUPTED_TOOL_TEXT)
    if _already_valid(history):
        assert not changed and fixed == history
    if name in ("plain", "answered", "system first", "empty"):
        assert _already_valid(history) and not changed
