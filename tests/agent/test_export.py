"""`agent.export.export_session` on its own: long tool results, retried turns, partial
records."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from birdie_tui.agent.export import RESULT_CHARS, export_session
from birdie_tui.agent.provenance import CallContext, Segment

from .conftest import collect, retry

META = SimpleNamespace(id="2026-01-01_1", title=None, created_at="c", updated_at="u", turns=2,
                       input_tokens=0, output_tokens=0)


def _history(result: str) -> list:
    call = {"name": "cat", "args": {"path": "big"}, "id": "c1"}
    return [HumanMessage("first", id="h1"), AIMessage("one", id="a1"),
            HumanMessage("show it", id="h2"), AIMessage("", tool_calls=[call], id="a2"),
            ToolMessage(result, tool_call_id="c1", name="cat", id="t1"),
            AIMessage("done", id="a3")]


def test_markdown_caps_long_tool_results_and_json_keeps_them():
    """A tool result over the cap is cut in Markdown with a note; JSON has it whole."""
    big = "x" * (RESULT_CHARS * 3)
    md = export_session(META, _history(big), [], "markdown")
    assert "x" * RESULT_CHARS in md and "x" * (RESULT_CHARS + 1) not in md
    assert "result cut" in md
    data = json.loads(export_session(META, _history(big), [], "json"))
    assert data["turns"][1]["tool_calls"][0]["result"] == big


def test_markdown_has_no_raw_carriage_return_and_json_keeps_the_text():
    """CRLF and lone CR in a message or a tool result become LF in Markdown (a viewer would
    overwrite the line); JSON keeps the exact text, escaped."""
    history = _history("50%\r100%\r\ndone")
    history[0] = HumanMessage("line one\r\nline two\rline three", id="h1")
    md = export_session(META, history, [], "markdown")
    assert "\r" not in md
    assert "line one\nline two\nline three" in md and "50%\n100%\ndone" in md
    data = json.loads(export_session(META, history, [], "json"))
    assert data["messages"][0]["content"] == "line one\r\nline two\rline three"


def test_turns_without_records_are_named_once():
    """Records for turn 2 only: the Markdown names turn 1 as unrecorded, and only turn 2 has a
    Context block; a later call lists what stayed the same in one line."""
    base = Segment("base", tokens=40, digest="d")
    calls = [CallContext(2, 1, (base, Segment("history", tokens=5)), message_id="a2"),
             CallContext(2, 2, (base, Segment("history", tokens=9)), message_id="a3",
                         evicted=(("ssh", "expired"),))]
    md = export_session(META, _history("small"), calls, "markdown")
    assert "no prompt record for turn 1:" in md
    assert md.count("#### Context") == 1 and md.index("#### Context") > md.index("## Turn 2")
    assert "same as call 1: base" in md and "evicted: ssh (expired)" in md
    with pytest.raises(ValueError):
        export_session(META, [], [], "yaml")


def test_counts_in_the_markdown_say_one_thing_in_the_singular():
    """One dropped message is "1 older message", not "message(s)"; several unrecorded turns
    are "turns 1, 3"."""
    base = Segment("base", tokens=40, digest="d")
    one = [CallContext(2, 1, (base,), message_id="a2", history_dropped=1)]
    md = export_session(META, _history("small"), one, "markdown")
    assert "· 1 older message not sent" in md and "(s)" not in md
    meta = SimpleNamespace(**{**vars(META), "turns": 3})
    history = _history("small") + [HumanMessage("again", id="h3"), AIMessage("ok", id="a4")]
    calls = [CallContext(2, 1, (base,), message_id="a2", history_dropped=3)]
    md = export_session(meta, history, calls, "markdown")
    assert "no prompt record for turns 1, 3:" in md and "· 3 older messages not sent" in md


async def test_a_retried_turn_keeps_the_records_of_the_run_in_the_history(engine):
    """/retry takes the first run's records away with its messages: the export shows the run
    whose reply is in the history, once."""
    await collect(engine, "hello")
    await collect(engine, "say it twice")
    first = (await engine.contexts())[-1]
    await retry(engine)
    records = await engine.contexts()
    assert [r.turn for r in records] == [1, 2]
    messages = await engine.messages()
    assert records[-1].message_id == messages[-1].id != first.message_id
    data = json.loads(export_session(engine.session, messages, records, "json"))
    assert [c["message_id"] for c in data["turns"][1]["calls"]] == [messages[-1].id]
