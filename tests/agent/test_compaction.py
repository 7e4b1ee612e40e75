"""Compaction: which messages to summarise, and the rolling summary (extractive or by a model)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from birdie_tui.agent import compaction as cmp
from birdie_tui.agent.compaction import (
    SUMMARY_CHARS,
    SUMMARY_HEADER,
    extractive_summary,
    split_for_compaction,
    summary_block,
    summary_from_reply,
    summary_request,
    summary_text,
    turns,
)
from birdie_tui.agent.history import history_problems
from tests.agent import test_window as shared  # the valid-history strategy

PROPS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def humans(messages: list[BaseMessage]) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]


def call(name: str, call_id: str, **args: object) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


@st.composite
def history_and_start(draw: st.DrawFn) -> tuple[list[BaseMessage], int]:
    """A valid history and a boundary: 0 or one of its user messages."""
    history = draw(shared.histories(max_turns=12))
    return history, draw(st.sampled_from([0, *humans(history)]))


@pytest.mark.fuzz
@PROPS
@given(history_and_start(), st.integers(1, 4))
def test_split_keeps_exactly_the_last_turns_verbatim(case, keep):
    """The kept part messages[end:] holds exactly the last `keep` user turns; None only when
    fewer than keep + 1 user turns begin at or after `start`."""
    history, start = case
    span = split_for_compaction(history, keep, start=start)
    after = [i for i in humans(history) if i >= start]
    if len(after) <= keep:
        assert span is None
        return
    assert span is not None
    begin, end = span
    assert begin == start and end == after[-keep]
    assert [i for i in humans(history) if i >= end] == humans(history)[-keep:]


@pytest.mark.fuzz
@PROPS
@given(history_and_start(), st.integers(1, 4))
def test_split_cuts_at_turn_boundaries_and_both_parts_stay_valid(case, keep):
    """[begin, end) opens at a turn boundary and ends at a user message; the summarised part
    and the kept part are each valid histories."""
    history, start = case
    span = split_for_compaction(history, keep, start=start)
    if span is None:
        return
    begin, end = span
    assert begin < end < len(history)
    assert begin == 0 or isinstance(history[begin], HumanMessage)
    assert isinstance(history[end], HumanMessage)
    assert history_problems(history[begin:end]) == []
    assert history_problems(history[end:]) == []


@pytest.mark.fuzz
@PROPS
@given(shared.histories(max_turns=8), st.data())
def test_split_start_inside_a_turn_moves_back_to_its_user_message(history, data):
    """Any start index, even inside a tool round, is moved back to the opening of its turn."""
    start = data.draw(st.integers(0, len(history) + 2))
    span = split_for_compaction(history, 1, start=start)
    if span is None:
        return
    begin, _ = span
    assert begin <= start
    assert begin == 0 or isinstance(history[begin], HumanMessage)
    assert not any(isinstance(m, HumanMessage) for m in history[begin + 1:start + 1])


@pytest.mark.fuzz
@PROPS
@given(shared.histories(max_turns=40), st.text(max_size=9_000), st.text(max_size=400))
def test_extractive_summary_is_deterministic_and_bounded(history, prior, instructions):
    """Same input, byte-identical output (also from copies), never over SUMMARY_CHARS."""
    summary = extractive_summary(history, prior, instructions)
    again = extractive_summary(copy.deepcopy(history), str(prior), str(instructions))
    assert summary == again
    assert len(summary) <= SUMMARY_CHARS


@pytest.mark.fuzz
@PROPS
@given(shared.histories(max_turns=40), st.sampled_from(["", "alpha", "keep the zeta bits"]))
def test_extractive_summary_mentions_every_user_turn_while_under_the_cap(history, focus):
    """Each summarised user turn gets its "User asked:" line unless a note says some turns
    were left out for space; when so, the summary is near the cap."""
    summary = extractive_summary(history, "earlier things happened", focus)
    asked = summary.count("User asked: ")
    if "not shown)" in summary:
        assert asked < len(humans(history))
        assert len(summary) > SUMMARY_CHARS - 1_000
    else:
        assert asked == len(humans(history))
    assert summary.startswith("earlier things happened")


def test_split_examples():
    """Three turns and keep 2: the first turn is summarised; keep 3: nothing to do."""
    history = [HumanMessage("a"), call("bash", "1"), ToolMessage("r", tool_call_id="1"),
               AIMessage("A"), HumanMessage("b"), AIMessage("B"), HumanMessage("c")]
    assert split_for_compaction(history, 2) == (0, 4)
    assert split_for_compaction(history, 1) == (0, 6)
    assert split_for_compaction(history, 3) is None
    assert split_for_compaction(history, 1, start=4) == (4, 6)
    assert split_for_compaction(history, 1, start=2) == (0, 6)  # inside the tool round
    assert split_for_compaction(history, 1, start=6) is None
    assert split_for_compaction([], 1) is None


def test_split_refuses_to_keep_no_turn():
    """keep_turns below 1 would summarise the turn in progress: refused."""
    with pytest.raises(ValueError):
        split_for_compaction([HumanMessage("a")], 0)


def test_turns_groups_by_user_message():
    """Turns open at user messages; what precedes the first one is a group of its own."""
    greeting, a, b = AIMessage("hi"), HumanMessage("a"), HumanMessage("b")
    reply = AIMessage("r")
    assert turns([greeting, a, reply, b]) == [[greeting], [a, reply], [b]]
    assert turns([]) == []


def test_extractive_summary_example():
    """The offline summary names the ask, the tools used and the reply's first sentence (with
    the next one when the first is shorter than 40 characters)."""
    history = [HumanMessage("Please read setup.py and tell me the version.\nThanks!"),
               call("read_file", "1", path="setup.py"),
               ToolMessage("version='1.2'", tool_call_id="1", name="read_file"),
               AIMessage("The version is 1.2. It is set in setup.py on line 3."),
               HumanMessage("Bump it"), call("edit", "2"), ToolMessage("ok", tool_call_id="2"),
               AIMessage("Done.\n\nI bumped it to 1.3 in setup.py.")]
    assert extractive_summary(history, "Earlier: the repo was cloned.", "versions") == (
        "Earlier: the repo was cloned.\n\n"
        "Focus: versions\n"
        "User asked: Please read setup.py and tell me the version.\n"
        "Birdie used tools: read_file\n"
        "Birdie: The version is 1.2. It is set in setup.py on line 3.\n"
        "User asked: Bump it\n"
        "Birdie used tools: edit\n"
        "Birdie: Done. I bumped it to 1.3 in setup.py.")


def test_extractive_summary_prefers_turns_matching_the_focus():
    """When turns must be left out, those mentioning the focus words stay, with the newest."""
    history: list[BaseMessage] = []
    for n in range(80):
        topic = "database schema" if n == 3 else f"topic {n}"
        history += [HumanMessage(f"Question {n} about {topic} " + "x" * 100 + "."),
                    AIMessage(f"Answer {n}. " + "y" * 100)]
    summary = extractive_summary(history, instructions="the database")
    assert "Question 3 about database schema" in summary
    assert "Question 79 " in summary and "Question 10 " not in summary
    assert "not shown)" in summary and len(summary) <= SUMMARY_CHARS
    assert summary.index("Question 3 ") < summary.index("Question 79 ")  # in order


def test_huge_prior_summary_is_trimmed_but_stays_on_top():
    """A huge prior summary keeps its start and end, above the new turns, within the cap."""
    prior = "START " + "p" * 20_000 + " END"
    summary = extractive_summary([HumanMessage("new question"), AIMessage("ok")], prior)
    assert summary.startswith("START ") and "END\n\nUser asked: new question" in summary
    assert len(summary) == SUMMARY_CHARS


def test_summary_text_folds_and_bounds():
    """The prior comes first, then the new part; both trimmed in the middle when too long."""
    assert summary_text("", "") == ""
    assert summary_text("old", "") == "old"
    assert summary_text(" old ", "new") == "old\n\nnew"
    folded = summary_text("o" * 5_000, "n" * 5_000)
    assert len(folded) == SUMMARY_CHARS and folded.startswith("o") and folded.endswith("n")


def test_summary_request_shape_and_truncation():
    """A system instruction, then the prior summary and a plain-text transcript whose tool
    results are cut to about 500 characters."""
    history = [HumanMessage("Read the log"), call("read_file", "1", path="app.log"),
               ToolMessage("L" * 5_000, tool_call_id="1", name="read_file"),
               AIMessage("The log shows a crash.")]
    system, user = summary_request(history, "Earlier: setup done.", "the crash")
    assert isinstance(system, SystemMessage) and isinstance(user, HumanMessage)
    assert "open tasks" in system.content and "focus on: the crash" in system.content
    text = user.content
    assert "Summary so far:\nEarlier: setup done." in text
    assert "User: Read the log" in text and "Birdie: The log shows a crash." in text
    assert 'Birdie called read_file({"path": "app.log"})' in text
    assert "L" * 500 not in text and "L" * 499 + "…" in text


def test_summary_request_keeps_the_most_recent_60k_characters():
    """A long transcript loses its oldest messages first, with a note saying how many."""
    history: list[BaseMessage] = []
    for n in range(300):
        history += [HumanMessage(f"Q{n} " + "q" * 300), AIMessage(f"A{n} " + "a" * 300)]
    text = summary_request(history)[1].content
    assert cmp.TRANSCRIPT_CHARS - 1_000 < len(text) < cmp.TRANSCRIPT_CHARS + 1_000
    assert "A299 " in text and "Q0 " not in text and "earlier messages left out" in text


def test_summary_from_reply_and_block():
    """A model reply (string or blocks) becomes the capped summary; the block adds the header."""
    reply = AIMessage([{"type": "text", "text": "  Decided: use SQLite.  "}])
    assert summary_from_reply(reply) == "Decided: use SQLite."
    assert len(summary_from_reply("s" * 10_000)) == SUMMARY_CHARS
    assert summary_block("Decided: use SQLite.") == f"{SUMMARY_HEADER}\nDecided: use SQLite."
    assert summary_block("  ") == ""
