"""The token-budget window: which recent messages go to the model."""

from __future__ import annotations

import itertools

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

from birdie_tui.agent.history import history_problems
from birdie_tui.agent.window import (
    DEFAULT_CONTEXT_WINDOW,
    IMAGE_TOKENS,
    MIN_HISTORY_BUDGET,
    Window,
    budget_window,
    history_budget,
    message_tokens,
    output_reserve,
)
from birdie_tui.providers.tokens import PER_MESSAGE_OVERHEAD

TOOL_NAMES = ("read_file", "bash", "search", "write_file")
WORDS = ("alpha", "beta", "gamma.", "delta!", "epsilon?", "zeta\n", "x")

texts = st.builds(lambda words: " ".join(words),
                  st.lists(st.sampled_from(WORDS), max_size=60))
sized_texts = st.one_of(texts, st.integers(0, 3000).map(lambda n: "z" * n))


@st.composite
def turn(draw: st.DrawFn, ids: itertools.count) -> list[BaseMessage]:
    """One user turn: a user message, 0–3 model steps (text, or 1–3 calls and their results)."""
    out: list[BaseMessage] = [HumanMessage(draw(sized_texts))]
    for _ in range(draw(st.integers(0, 3))):
        calls = [{"name": draw(st.sampled_from(TOOL_NAMES)), "args": {"q": draw(texts)},
                  "id": f"call{next(ids)}", "type": "tool_call"}
                 for _ in range(draw(st.integers(0, 3)))]
        out.append(AIMessage(draw(sized_texts), tool_calls=calls))
        out += [ToolMessage(draw(sized_texts), tool_call_id=c["id"], name=c["name"])
                for c in calls]
    if draw(st.integers(0, 9)) == 0:
        out.append(SystemMessage(draw(texts)))
    return out


@st.composite
def histories(draw: st.DrawFn, max_turns: int = 10) -> list[BaseMessage]:
    """A valid history, sometimes opened by a greeting or a system note before any user."""
    ids = itertools.count()
    prefix = draw(st.sampled_from([[], [], [AIMessage("Hello!")], [SystemMessage("note")]]))
    return [*prefix, *itertools.chain.from_iterable(
        draw(st.lists(turn(ids), max_size=max_turns)))]


def humans(messages: list[BaseMessage]) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]


def tokens(messages: list[BaseMessage]) -> int:
    return sum(message_tokens(m) for m in messages)


PROPS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.fuzz
@PROPS
@given(histories(), st.integers(-10, 6000))
def test_window_is_a_valid_suffix_starting_at_a_user_message(history, budget):
    """The window is history[start:], starts at a user message (or is the whole history),
    is valid, and reports its tokens and dropped count."""
    window = budget_window(history, budget)
    assert window.messages == history[window.start:]
    assert all(a is b for a, b in zip(window.messages, history[window.start:]))
    assert window.start == 0 or isinstance(history[window.start], HumanMessage)
    assert history_problems(window.messages) == []
    assert window.tokens == tokens(window.messages)
    assert window.dropped == window.start


@pytest.mark.fuzz
@PROPS
@given(histories(), st.integers(-10, 6000))
def test_window_holds_the_current_turn_and_respects_the_budget(history, budget):
    """The current turn is always sent whole; only it (or a history without a user message)
    may exceed the budget."""
    window = budget_window(history, budget)
    starts = humans(history)
    if not starts:
        assert window.start == 0
        return
    assert window.start <= starts[-1]
    if window.tokens > budget:
        assert window.start == starts[-1]


@pytest.mark.fuzz
@PROPS
@given(histories(), st.integers(0, 6000))
def test_window_is_maximal(history, budget):
    """Taking one more turn (or the messages before the first user message) would exceed the
    budget: nothing that fits is dropped."""
    window = budget_window(history, budget)
    if window.start == 0:
        return
    earlier = [i for i in humans(history) if i < window.start]
    previous = earlier[-1] if earlier else 0
    assert tokens(history[previous:]) > budget


@pytest.mark.fuzz
@PROPS
@given(histories(), st.integers(0, 6000))
def test_a_custom_counter_is_used(history, budget):
    """The counter passed in decides the sizes (here: one token per message)."""
    window = budget_window(history, budget, count=lambda _msg: 1)
    assert window.tokens == len(window.messages)
    if window.start and window.start != humans(history)[-1]:
        assert window.tokens <= budget


def test_empty_history_is_an_empty_window():
    """No messages, nothing sent, nothing dropped."""
    assert budget_window([], 100) == Window(messages=[], start=0, tokens=0, dropped=0)


def test_history_without_a_user_message_is_sent_whole():
    """With no user message there is no place to cut: everything is sent, even over budget."""
    history = [SystemMessage("x" * 400), AIMessage("y" * 400)]
    window = budget_window(history, 10)
    assert window.messages == history and window.start == 0


def test_cut_lands_before_the_oldest_user_turn_that_fits():
    """At ten tokens a message, 45 sends the last two turns (40): all three need 60."""
    history = [HumanMessage("a"), AIMessage("1"), HumanMessage("b"), AIMessage("2"),
               HumanMessage("c"), AIMessage("3")]
    window = budget_window(history, 45, count=lambda _m: 10)
    assert window.start == 2 and window.tokens == 40 and window.dropped == 2
    assert budget_window(history, 60, count=lambda _m: 10).start == 0
    assert budget_window(history, 59, count=lambda _m: 10).start == 2


def test_current_turn_is_sent_whole_even_over_budget():
    """A current turn bigger than the budget is still sent whole, from its user message."""
    history = [HumanMessage("old"), AIMessage("old reply"), HumanMessage("now"),
               AIMessage("", tool_calls=[{"name": "bash", "args": {}, "id": "1"}]),
               ToolMessage("z" * 40_000, tool_call_id="1")]
    window = budget_window(history, 100)
    assert window.start == 2 and window.tokens > 100
    assert history_problems(window.messages) == []


def test_tool_round_is_never_split():
    """A turn whose tool results do not fit is dropped whole, never cut after its AI call."""
    history = [HumanMessage("q1"),
               AIMessage("", tool_calls=[{"name": "bash", "args": {}, "id": "1"}]),
               ToolMessage("z" * 4_000, tool_call_id="1"), AIMessage("done"),
               HumanMessage("q2"), AIMessage("fine")]
    window = budget_window(history, 500)
    assert window.start == 4
    assert history_problems(window.messages) == []


def test_messages_before_the_first_user_message_go_only_with_everything():
    """A greeting before the first user message is sent only when the whole history fits."""
    history = [AIMessage("Hello! " * 100), HumanMessage("hi"), AIMessage("hey")]
    assert budget_window(history, 10_000).start == 0
    assert budget_window(history, 50).start == 1


def test_system_message_in_the_history_is_counted_like_any_other():
    """A system message inside a turn travels with its turn and counts towards the budget."""
    history = [HumanMessage("a"), SystemMessage("s" * 400), AIMessage("b"), HumanMessage("c")]
    assert budget_window(history, 40).start == 3
    assert budget_window(history, 1_000).start == 0


def test_only_the_messages_sent_are_counted():
    """On a 5,000-message history with a small budget, only the recent part is measured."""
    history: list[BaseMessage] = []
    for n in range(2_500):
        history += [HumanMessage(f"question {n}"), AIMessage(f"answer {n}")]
    seen: list[BaseMessage] = []

    def count(msg: BaseMessage) -> int:
        seen.append(msg)
        return message_tokens(msg)

    window = budget_window(history, 200, count=count)
    assert 0 < len(window.messages) < 40
    assert len(seen) <= len(window.messages) + 2


def test_message_tokens_counts_text_tool_calls_and_images():
    """Text, tool-call names and arguments, and images each add to a message's estimate."""
    assert message_tokens(HumanMessage("")) == PER_MESSAGE_OVERHEAD
    assert message_tokens(HumanMessage("abcdefgh")) == PER_MESSAGE_OVERHEAD + 2
    plain = AIMessage("hello")
    calling = AIMessage("hello", tool_calls=[{"name": "read_file", "args": {"path": "a" * 80},
                                              "id": "1"}])
    assert message_tokens(calling) > message_tokens(plain) + 20
    image = HumanMessage([{"type": "text", "text": "look"},
                          {"type": "image_url", "image_url": {"url": "data:" + "A" * 9999}}])
    assert message_tokens(image) == PER_MESSAGE_OVERHEAD + 1 + IMAGE_TOKENS
    thinking = AIMessage([{"type": "thinking", "thinking": "t" * 400}, {"type": "text",
                                                                       "text": "ok"}])
    assert message_tokens(thinking) == PER_MESSAGE_OVERHEAD + 1 + 100


def test_history_budget_subtracts_prompt_reply_room_and_margin():
    """Budget = window − fixed − reserve (min(8,000, 20 %)) − 5 % margin."""
    assert output_reserve(200_000) == 8_000 and output_reserve(32_000) == 6_400
    assert history_budget(200_000, fixed_tokens=5_000) == 200_000 - 5_000 - 8_000 - 10_000
    assert history_budget(32_768, fixed_tokens=0, reserve_output=1_000) \
        == 32_768 - 1_000 - 1_638


@pytest.mark.parametrize("window", [None, 0, -5])
def test_unknown_context_window_uses_the_default(window):
    """An unknown model is budgeted as a 32,000-token window."""
    assert DEFAULT_CONTEXT_WINDOW == 32_000
    assert history_budget(window, fixed_tokens=2_000) == 32_000 - 2_000 - 6_400 - 1_600


def test_history_budget_never_drops_below_the_floor():
    """However big the prompt, the history keeps at least 1,000 tokens."""
    assert history_budget(8_000, fixed_tokens=50_000) == MIN_HISTORY_BUDGET == 1_000
