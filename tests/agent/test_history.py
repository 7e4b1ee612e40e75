from __future__ import annotations

from hypothesis import given, strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from birdie_tui.agent.history import context_window, history_problems, repair_history


def ai_call(*ids):
    return AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": i} for i in ids])


def tool(i):
    return ToolMessage(content="ok", tool_call_id=i, name="t")


def test_dangling_call_answered_in_place_not_appended():
    """A tool call with no answer gets an error ToolMessage right after it, not at the end."""
    history = [HumanMessage("a"), ai_call("1", "2"), tool("1"), HumanMessage("b"),
               AIMessage("answer")]
    fixed, changed = repair_history(history)
    assert changed
    assert history_problems(history) and history_problems(fixed) == []
    assert isinstance(fixed[3], ToolMessage) and fixed[3].tool_call_id == "2"
    assert fixed[3].status == "error"
    assert isinstance(fixed[4], HumanMessage)


def test_late_answer_moved_into_place_and_orphans_dropped():
    """A late tool answer is moved next to its call, and answers to no call are dropped."""
    history = [HumanMessage("a"), ai_call("1"), HumanMessage("b"), tool("1"), tool("zzz")]
    fixed, _ = repair_history(history)
    assert [type(m).__name__ for m in fixed] == ["HumanMessage", "AIMessage", "ToolMessage",
                                                 "HumanMessage"]
    assert fixed[2].content == "ok"


def test_valid_history_is_untouched():
    """A valid history comes back unchanged and is reported as unchanged."""
    history = [HumanMessage("a"), ai_call("1"), tool("1"), AIMessage("done")]
    fixed, changed = repair_history(history)
    assert not changed and fixed == history


messages = st.lists(
    st.one_of(
        st.builds(lambda t: HumanMessage(t), st.text(max_size=3)),
        st.builds(lambda ids: ai_call(*ids), st.lists(st.sampled_from("abcd"), max_size=3,
                                                     unique=True)),
        st.builds(tool, st.sampled_from("abcdx")),
        st.just(AIMessage("text")),
    ),
    max_size=12,
)


@given(messages)
def test_repair_always_yields_a_valid_history(history):
    """Repair makes any message sequence a valid history, and repairing again changes nothing."""
    fixed, _ = repair_history(history)
    assert history_problems(fixed) == []
    assert repair_history(fixed)[1] is False  # idempotent


def test_context_window_cuts_at_a_user_message():
    """The context window keeps the newest messages within the limit, from a user message."""
    history = []
    for n in range(10):
        history += [HumanMessage(f"q{n}"), ai_call(f"c{n}"), tool(f"c{n}"), AIMessage(f"a{n}")]
    window = context_window(history, 20)
    assert len(window) <= 20 and isinstance(window[0], HumanMessage)
    assert window[-1] is history[-1]


def test_context_window_keeps_a_long_current_turn_whole():
    """A current turn longer than the limit is kept whole from its user message."""
    history = [HumanMessage("old"), AIMessage("x"), HumanMessage("now")]
    for n in range(15):
        history += [ai_call(f"c{n}"), tool(f"c{n}")]
    window = context_window(history, 20)
    assert window[0].content == "now" and history_problems(window) == []
