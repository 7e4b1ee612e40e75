"""Skill leases: which loaded knowledge skills are in the system prompt, derived from history alone.

Upstream Birdie (0.15.1, `birdie.agent.graph._loaded_skills_from_history`) lets the model load a
knowledge skill's body with `get_skill(skill_name=...)`. The body then stays in the prompt for a
*lease*: while at most `decay_turns` user turns (HumanMessages) have begun since its latest load,
and only for the `max_loaded` most recently loaded skills (least recently loaded evicted first).
No state is stored: every model call recomputes the leases from the message history.

This module is that rule, exactly (same set of names as upstream for every history and setting
upstream understands; `tests/compat/test_birdie_lease.py` checks it against the real function),
with one extension: birdie-tui's `load_skill(name=...)` is an *alias* of `get_skill` sharing the
same lease, and either tool accepts either argument key.

Which calls count (a "load"):
- an AIMessage tool call named `get_skill` or `load_skill` whose identifier resolves through
  `aliases` (a skill's name or its `location` -> canonical name) to a non-empty name. Unknown
  identifiers, and non-string ones, are ignored.
- The identifier is the tool's own key if present (`skill_name` for get_skill, `name` for
  load_skill), else the other key, else "" (upstream's default). Upstream knows neither
  `load_skill` nor `get_skill(name=...)`; those are the only histories where we see more.
- The result does not matter: a call whose ToolMessage has status="error" (or has no answer
  yet) still counts, as upstream counts every call with a known identifier. Keeping upstream's
  rule keeps a session's prompt identical in both apps.

Turns: user turn t (1-based) begins with the t-th HumanMessage; a load made before the first
HumanMessage is at turn 0. "Now" is the model call about to happen at the end of `messages`.

Cost: one pass over the messages, O(n) plus a sort of the distinct loaded skills; it runs
before every model call. Cheap imports: only langchain_core messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

GET_SKILL = "get_skill"
GET_SKILL_ARG = "skill_name"
LOAD_SKILL = "load_skill"  # the same value as birdie_tui.agent.skill_tools.LOAD_SKILL
LOAD_SKILL_ARG = "name"
DECAY_TURNS = 5  # upstream SKILL_DECAY_TURNS
MAX_LOADED = 3  # upstream SKILL_MAX_LOADED
EXPIRED = "expired"
LRU = "lru"

# Load tool -> the argument keys it reads, its own key first.
LOAD_TOOLS: Mapping[str, tuple[str, str]] = {
    GET_SKILL: (GET_SKILL_ARG, LOAD_SKILL_ARG),
    LOAD_SKILL: (LOAD_SKILL_ARG, GET_SKILL_ARG),
}


@dataclass(frozen=True)
class Lease:
    name: str  # canonical skill name
    loaded_turn: int  # 1-based user turn of the latest load (0: before the first HumanMessage)
    turns_left: int  # how many more user turns it stays after this one (0: this is its last)


@dataclass(frozen=True)
class LeaseState:
    active: tuple[Lease, ...]  # in the prompt now, most recently loaded first
    evicted: tuple[tuple[str, str], ...]  # (name, EXPIRED | LRU), see `lease_state`

    @property
    def names(self) -> tuple[str, ...]:
        """The active skill names, most recently loaded first."""
        return tuple(lease.name for lease in self.active)


def load_target(call: Mapping[str, Any], aliases: Mapping[str, str]) -> str | None:
    """The canonical skill a tool call loads, or None if it is not a load that counts.

    `call` is a LangChain tool call ({"name", "args", "id"}). See the module docstring for the
    rule; the graph's `get_skill` tool can use this to resolve its argument the same way.
    """
    keys = LOAD_TOOLS.get(call.get("name"))  # type: ignore[arg-type]
    if keys is None:
        return None
    args = call.get("args")
    if not isinstance(args, Mapping):
        args = {}
    ident = next((args[key] for key in keys if key in args), "")
    if not isinstance(ident, str):
        return None
    return aliases.get(ident) or None


# Per skill: its latest load in each of the last three distinct turns, oldest first, as
# (turn, message index). Three suffice: the previous turn's start only sees loads two turns back.
_Loads = list[tuple[int, int]]


def _scan(messages: Sequence[BaseMessage], aliases: Mapping[str, str]) -> tuple[int, dict[str, _Loads]]:
    """One pass: the number of user turns, and each loaded skill's recent loads.

    The dict keeps the order in which skills were *first* loaded: upstream breaks ties between
    skills loaded by the same AIMessage that way (a stable sort over its insertion order).
    """
    humans = 0
    loads: dict[str, _Loads] = {}
    for index, msg in enumerate(messages):
        if isinstance(msg, HumanMessage):
            humans += 1
        elif isinstance(msg, AIMessage):
            for call in msg.tool_calls or ():
                name = load_target(call, aliases)
                if name is None:
                    continue
                recent = loads.setdefault(name, [])
                if recent and recent[-1][0] == humans:
                    recent[-1] = (humans, index)
                else:
                    recent.append((humans, index))
                    del recent[:-3]
    return humans, loads


def _select(latest: list[tuple[str, int, int]], humans: int, decay_turns: int,
            max_loaded: int) -> tuple[Lease, ...]:
    """Upstream's selection over (name, turn, index) in first-load order: keep the loads within
    `decay_turns` turns, newest message first (ties keep first-load order), cut to `max_loaded`
    (a Python slice, as upstream: a negative cap drops from the oldest end)."""
    live = [(-index, rank, name, turn) for rank, (name, turn, index) in enumerate(latest)
            if humans - turn <= decay_turns]
    live.sort()
    return tuple(Lease(name, turn, decay_turns - (humans - turn))
                 for _, _, name, turn in live[:max_loaded])


def _evicted(loads: dict[str, _Loads], humans: int, active: tuple[Lease, ...],
             decay_turns: int, max_loaded: int) -> tuple[tuple[str, str], ...]:
    if humans < 2:
        return ()
    # The previous turn's first model call saw the history through HumanMessage humans-1,
    # so only loads made at turn humans-2 or earlier.
    before = []
    for name, recent in loads.items():
        prior = next((load for load in reversed(recent) if load[0] <= humans - 2), None)
        if prior is not None:
            before.append((name, *prior))
    now = {lease.name for lease in active}
    return tuple(
        (lease.name, EXPIRED if humans - loads[lease.name][-1][0] > decay_turns else LRU)
        for lease in _select(before, humans - 1, decay_turns, max_loaded)
        if lease.name not in now
    )


def lease_state(messages: Sequence[BaseMessage], aliases: Mapping[str, str], *,
                decay_turns: int = DECAY_TURNS, max_loaded: int = MAX_LOADED) -> LeaseState:
    """The skill leases for the model call about to happen at the end of `messages`.

    `aliases` maps every accepted identifier (skill name or location) to the canonical name of
    an allowed knowledge skill (upstream's `_skill_alias_map`; the identity map over the allowed
    names reproduces upstream's default). `{l.name for l in active}` equals upstream's
    `_loaded_skills_from_history(messages, allowed, decay_turns, max_loaded, aliases)`.

    `active`: a skill is active when its latest load was made at most `decay_turns` user turns
    ago (`turns_left = decay_turns - (current turn - loaded_turn)`, so 0 <= turns_left <=
    decay_turns; decay_turns=0 keeps it for the turn of the load only) and it is among the
    `max_loaded` most recently loaded such skills (max_loaded=0: none). A repeated load
    refreshes the lease and the recency.

    `evicted`: the skills that were active at the *first model call of the previous user turn*
    (the history through its HumanMessage) and are not active now, in that earlier order, with
    the reason: EXPIRED if its latest load is now more than `decay_turns` turns old, else LRU
    (pushed out by more recent loads). Empty before the second user turn. A skill that was
    loaded and pushed out again since the previous turn began is not reported. At the first
    model call of turn t (`lease_at_turn`) this reads "left the prompt since turn t-1 began".
    """
    humans, loads = _scan(messages, aliases)
    latest = [(name, *recent[-1]) for name, recent in loads.items()]
    active = _select(latest, humans, decay_turns, max_loaded)
    return LeaseState(active, _evicted(loads, humans, active, decay_turns, max_loaded))


def lease_at_turn(messages: Sequence[BaseMessage], turn: int, aliases: Mapping[str, str], *,
                  decay_turns: int = DECAY_TURNS, max_loaded: int = MAX_LOADED) -> LeaseState:
    """The leases as of the first model call of user turn `turn` (1-based): `lease_state` of the
    history up to and including that turn's HumanMessage, so it never changes as the session
    goes on. Raises ValueError when the history has no such turn."""
    seen = 0
    for index, msg in enumerate(messages):
        if isinstance(msg, HumanMessage):
            seen += 1
            if seen == turn:
                return lease_state(messages[: index + 1], aliases,
                                   decay_turns=decay_turns, max_loaded=max_loaded)
    raise ValueError(f"no user turn {turn} in this history ({seen} user turns)")
