"""Skill leases (birdie_tui.agent.lease): upstream Birdie's get_skill lease rule, derived from history.

The reference below is upstream's `_loaded_skills_from_history` written out plainly (with
`load_skill` and either argument key as aliases); the real upstream function is compared in
tests/compat/test_birdie_lease.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from birdie_tui.agent import lease as lease_mod
from birdie_tui.agent.lease import (
    DECAY_TURNS, EXPIRED, GET_SKILL, LRU, MAX_LOADED, Lease, LeaseState, lease_at_turn, lease_state,
    load_target,
)
from birdie_tui.agent.skill_tools import LOAD_SKILL

ALIASES = {"alpha": "alpha", "beta": "beta", "gamma": "gamma", "delta": "delta",
           "skills/alpha/SKILL.MD": "alpha", "kb/beta": "beta"}
IDENTS = [*ALIASES, *ALIASES, "ghost", "", "Alpha"]  # (repeats weight the draws)
TOOLS = ["get_skill", "get_skill", "get_skill", "load_skill", "load_skill", "echo_text",
         "read_skill_file"]


# ---- the plain reference --------------------------------------------------------------------

def reference(messages, aliases, decay_turns, max_loaded):
    """Upstream's algorithm, transliterated: names active now, most recent first."""
    last_load_idx = {}
    humans_before = []
    human_count = 0
    for i, msg in enumerate(messages):
        if isinstance(msg, HumanMessage):
            human_count += 1
        humans_before.append(human_count)
        if isinstance(msg, AIMessage):
            for tc in msg.tool_calls:
                if tc["name"] == "get_skill":
                    keys = ["skill_name", "name"]
                elif tc["name"] == "load_skill":
                    keys = ["name", "skill_name"]
                else:
                    continue
                ident = ""
                for key in keys:
                    if key in tc["args"]:
                        ident = tc["args"][key]
                        break
                skill_name = aliases.get(ident) if isinstance(ident, str) else None
                if skill_name:
                    last_load_idx[skill_name] = i
    active = {}
    for skill_name, load_idx in last_load_idx.items():
        if human_count - humans_before[load_idx] <= decay_turns:
            active[skill_name] = load_idx
    return [name for name, _ in sorted(active.items(), key=lambda x: -x[1])[:max_loaded]]


def human_indexes(messages):
    return [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]


# ---- random histories -----------------------------------------------------------------------

@st.composite
def tool_calls(draw, ids):
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        tool = draw(st.sampled_from(TOOLS))
        key = draw(st.sampled_from(["skill_name", "name", "skill_name", "name", "path", None]))
        args = {} if key is None else {key: draw(st.sampled_from(IDENTS))}
        calls.append({"name": tool, "args": args, "id": f"call_{next(ids)}"})
    return calls


@st.composite
def histories(draw):
    """Turns of [Human, (AI with tool calls, ToolMessages answering them)*, AI], sometimes
    preceded by a system message or a stray AI load before the first HumanMessage."""
    ids = iter(range(10**6))
    messages = []
    if draw(st.booleans()):
        messages.append(SystemMessage("sys"))
    for turn in range(draw(st.integers(0, 9))):
        if turn or draw(st.integers(0, 9)):
            messages.append(HumanMessage(f"turn {turn + 1}"))
        for _ in range(draw(st.integers(0, 3))):
            calls = draw(tool_calls(ids))
            messages.append(AIMessage("", tool_calls=calls))
            for call in calls:
                if draw(st.integers(0, 9)):  # sometimes unanswered (an interrupted turn)
                    status = draw(st.sampled_from(["success", "error"]))
                    messages.append(ToolMessage("ok", tool_call_id=call["id"], name=call["name"],
                                                status=status))
        if draw(st.booleans()):
            messages.append(AIMessage("done"))
    return messages


SETTINGS = dict(decay_turns=st.integers(0, 6), max_loaded=st.integers(0, 4))


@pytest.mark.fuzz
@settings(max_examples=300, deadline=None)
@given(messages=histories(), **SETTINGS)
def test_matches_the_reference_and_keeps_its_bounds(messages, decay_turns, max_loaded):
    """Active names (in order) equal the plain reference; at most max_loaded; sane turns_left."""
    state = lease_state(messages, ALIASES, decay_turns=decay_turns, max_loaded=max_loaded)
    assert list(state.names) == reference(messages, ALIASES, decay_turns, max_loaded)
    assert len(state.active) <= max_loaded
    turn = len(human_indexes(messages))
    for lease in state.active:
        assert 0 <= lease.turns_left <= decay_turns
        assert lease.turns_left == decay_turns - (turn - lease.loaded_turn)
        assert 0 <= lease.loaded_turn <= turn


@pytest.mark.fuzz
@settings(max_examples=300, deadline=None)
@given(messages=histories(), **SETTINGS)
def test_evicted_is_what_left_since_the_previous_turn_began(messages, decay_turns, max_loaded):
    """Evicted = active at the previous turn's first model call minus active now, with reasons."""
    state = lease_state(messages, ALIASES, decay_turns=decay_turns, max_loaded=max_loaded)
    humans = human_indexes(messages)
    now = reference(messages, ALIASES, decay_turns, max_loaded)
    if len(humans) < 2:
        assert state.evicted == ()
        return
    before = reference(messages[: humans[-2] + 1], ALIASES, decay_turns, max_loaded)
    assert [name for name, _ in state.evicted] == [n for n in before if n not in now]
    unbounded = reference(messages, ALIASES, decay_turns, 10**6)  # every lease still in window
    for name, reason in state.evicted:
        assert name not in state.names
        assert reason == (LRU if name in unbounded else EXPIRED)


@pytest.mark.fuzz
@settings(max_examples=200, deadline=None)
@given(messages=histories(), more=histories(), **SETTINGS)
def test_a_past_turn_is_exact_and_never_changes(messages, more, decay_turns, max_loaded):
    """lease_at_turn(t) is lease_state of the history through turn t's HumanMessage, and
    appending more turns never changes it."""
    kw = dict(decay_turns=decay_turns, max_loaded=max_loaded)
    longer = messages + more
    for turn, index in enumerate(human_indexes(messages), start=1):
        past = lease_at_turn(messages, turn, ALIASES, **kw)
        assert past == lease_state(messages[: index + 1], ALIASES, **kw)
        assert lease_at_turn(longer, turn, ALIASES, **kw) == past


# ---- examples -------------------------------------------------------------------------------

def load(*idents, tool=GET_SKILL, key=None):
    """An AIMessage loading `idents`, followed by its ToolMessages."""
    key = key or ("skill_name" if tool == GET_SKILL else "name")
    calls = [{"name": tool, "args": {key: ident}, "id": f"{tool}-{ident}-{i}"}
             for i, ident in enumerate(idents)]
    return [AIMessage("", tool_calls=calls),
            *(ToolMessage("ok", tool_call_id=c["id"], name=tool) for c in calls)]


def turns(*loads_per_turn):
    """One user turn per argument: a HumanMessage, then the given messages, then a reply."""
    messages = []
    for i, extra in enumerate(loads_per_turn):
        messages += [HumanMessage(f"t{i + 1}"), *extra, AIMessage("reply")]
    return messages


def test_defaults_and_names_match_upstream_and_load_skill():
    """Defaults are upstream's (5 turns, 3 skills); load_skill is skill_tools' tool name."""
    assert (DECAY_TURNS, MAX_LOADED, GET_SKILL) == (5, 3, "get_skill")
    assert lease_mod.LOAD_SKILL == LOAD_SKILL == "load_skill"
    assert lease_state([], ALIASES) == LeaseState((), ())


def test_expires_exactly_after_decay_turns():
    """Loaded in turn 1 with decay 5: in the prompt for turns 1-6, gone (expired) at turn 7."""
    messages = turns(load("alpha"), *[[]] * 7)
    assert lease_at_turn(messages, 1, ALIASES).active == ()  # loaded after turn 1's first call
    for turn in range(2, 7):
        assert lease_at_turn(messages, turn, ALIASES).active == (Lease("alpha", 1, 6 - turn),)
    assert lease_at_turn(messages, 7, ALIASES) == LeaseState((), (("alpha", EXPIRED),))
    assert lease_at_turn(messages, 8, ALIASES) == LeaseState((), ())
    assert lease_state(messages[:3], ALIASES).active == (Lease("alpha", 1, 5),)  # right after


def test_decay_zero_and_max_zero():
    """decay_turns=0 keeps a skill for the turn of its load only; max_loaded=0 loads nothing."""
    messages = turns(load("alpha"), [])
    assert lease_state(messages[:3], ALIASES, decay_turns=0).active == (Lease("alpha", 1, 0),)
    assert lease_state(messages, ALIASES, decay_turns=0) == LeaseState((), ())
    assert lease_state(messages[:3], ALIASES, max_loaded=0) == LeaseState((), ())


def test_a_repeated_load_refreshes_the_lease():
    """Reloading in turn 4 restarts the 5-turn lease from turn 4."""
    messages = turns(load("alpha"), [], [], load("alpha"), *[[]] * 6)
    assert lease_at_turn(messages, 7, ALIASES).active == (Lease("alpha", 4, 2),)
    assert lease_at_turn(messages, 9, ALIASES).active == (Lease("alpha", 4, 0),)
    assert lease_at_turn(messages, 10, ALIASES) == LeaseState((), (("alpha", EXPIRED),))


def test_lru_keeps_the_most_recently_loaded():
    """A fourth load pushes out the least recently loaded; a refresh counts as recent."""
    messages = turns(load("alpha"), load("beta"), load("gamma"), load("alpha"), load("delta"), [])
    assert lease_at_turn(messages, 5, ALIASES).names == ("alpha", "gamma", "beta")
    state = lease_at_turn(messages, 6, ALIASES)
    assert state.names == ("delta", "alpha", "gamma")
    assert state.evicted == (("beta", LRU),)


def test_a_tie_in_one_message_goes_to_the_earliest_first_load():
    """Two skills loaded by one AIMessage tie on recency; like upstream's stable sort, the one
    first loaded earlier in the session ranks first."""
    messages = turns(load("beta"), load("alpha", "beta"))
    assert lease_state(messages, ALIASES, max_loaded=1).names == ("beta",)
    assert lease_state(turns(load("alpha", "beta")), ALIASES, max_loaded=1).names == ("alpha",)


def test_location_and_load_skill_are_aliases_sharing_one_lease():
    """get_skill by location, load_skill by name and either key all load the same skill."""
    by_location = turns(load("skills/alpha/SKILL.MD"))
    assert lease_state(by_location, ALIASES).active == (Lease("alpha", 1, 5),)
    messages = turns(load("alpha", tool=LOAD_SKILL), [], load("kb/beta", tool=LOAD_SKILL),
                     load("alpha", key="name"), [])
    assert lease_state(messages, ALIASES).active == (
        Lease("alpha", 4, 4), Lease("beta", 3, 3))
    assert load_target({"name": LOAD_SKILL, "args": {"skill_name": "beta"}}, ALIASES) == "beta"


def test_unknown_identifiers_and_other_tools_are_ignored_but_errors_count():
    """Only identifiers in the alias map count (case matters); the tool result does not."""
    assert lease_state(turns(load("ghost", "Alpha", "")), ALIASES) == LeaseState((), ())
    other = turns([AIMessage("", tool_calls=[{"name": "echo_text", "args": {"skill_name": "alpha"},
                                              "id": "x"}])])
    assert lease_state(other, ALIASES).active == ()
    failed = turns([AIMessage("", tool_calls=[{"name": "get_skill", "args": {"skill_name": "alpha"},
                                               "id": "e"}]),
                    ToolMessage("boom", tool_call_id="e", name="get_skill", status="error")])
    assert lease_state(failed, ALIASES).names == ("alpha",)
    assert load_target({"name": GET_SKILL, "args": {"skill_name": 3}}, ALIASES) is None


def test_lease_at_turn_rejects_missing_turns():
    """Turn 0 and turns past the end of the history raise ValueError."""
    messages = turns([], [])
    for turn in (0, 3):
        with pytest.raises(ValueError, match="no user turn"):
            lease_at_turn(messages, turn, ALIASES)
