"""Our skill leases equal the real Birdie 0.15.1 `_loaded_skills_from_history`, case for case.

Random histories (seeded, so every run checks the same cases) go to lease_oracle.py, run by
Birdie's own interpreter in one subprocess; it answers with upstream's set of loaded skills for
the whole history, for the history through each HumanMessage (each turn's first model call) and
for a few random cut points. `lease_state`, `lease_at_turn` and `LeaseState.evicted` must agree.

"Raw" cases use only upstream's vocabulary (get_skill with `skill_name`) and go to Birdie
verbatim. "Aliased" cases also use `load_skill` and either argument key, which upstream does not
know; Birdie gets them rewritten as the get_skill(skill_name=...) calls they stand for.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from birdie_tui.agent.lease import lease_at_turn, lease_state

from .conftest import BirdieEnv, _venv_env

pytestmark = [pytest.mark.compat, pytest.mark.parametrize("birdie_env", ["0.15.1"], indirect=True)]

ORACLE = Path(__file__).with_name("lease_oracle.py")
SEED = 20240515
CASES = 400
NAMES = ["alpha", "beta", "gamma", "delta", "eps"]


# ---- case generation ------------------------------------------------------------------------

def random_aliases(rng: random.Random) -> tuple[list[str], dict[str, str] | None]:
    allowed = NAMES[: rng.randint(1, len(NAMES))]
    if rng.random() < 0.15:
        return allowed, None  # upstream's default: the identity map over `allowed`
    aliases = {name: name for name in allowed}
    for name in allowed:
        if rng.random() < 0.6:
            aliases[f"skills/{name}/SKILL.MD"] = name
    if rng.random() < 0.2:
        aliases[f"kb/{allowed[0]}"] = rng.choice(allowed)
    if rng.random() < 0.05:
        aliases[""] = rng.choice(allowed)  # odd, but "any alias map" includes it
    return allowed, aliases


def random_call(rng: random.Random, idents: list[str], aliased: bool, call_id: str) -> dict[str, Any]:
    tools = ["get_skill"] * 4 + ["echo_text", "read_skill_file"] + ["load_skill"] * 3 * aliased
    tool = rng.choice(tools)
    ident: Any = rng.choice(idents) if rng.random() < 0.95 else 7
    if tool == "get_skill" and not aliased:
        args = rng.choice([{"skill_name": ident}] * 6 + [{}, {"path": ident}])
    else:
        args = rng.choice([{"skill_name": ident}, {"name": ident}, {"name": ident, "path": "x"},
                           {"skill_name": ident, "name": rng.choice(idents)}, {}])
    return {"name": tool, "args": args, "id": call_id}


def random_turn(rng: random.Random, idents: list[str], aliased: bool, out: list[dict]) -> None:
    for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
        calls = [random_call(rng, idents, aliased, f"c{len(out)}_{i}") for i in range(rng.randint(0, 3))]
        out.append({"type": "ai", "content": "", "tool_calls": calls})
        for call in calls:
            if rng.random() < 0.9:  # sometimes unanswered, as after an interrupted turn
                out.append({"type": "tool", "content": "ok", "tool_call_id": call["id"],
                            "name": call["name"], "status": rng.choice(["success", "error"])})
    if rng.random() < 0.7:
        out.append({"type": "ai", "content": "reply", "tool_calls": []})


def random_case(rng: random.Random, aliased: bool) -> dict[str, Any]:
    allowed, aliases = random_aliases(rng)
    idents = [*(aliases or allowed), "ghost", "", "ALPHA", "skills/ghost/SKILL.MD"]
    messages: list[dict] = []
    if rng.random() < 0.2:
        messages.append({"type": "system", "content": "sys"})
    if rng.random() < 0.1:
        random_turn(rng, idents, aliased, messages)  # loads before the first HumanMessage
    for turn in range(rng.randint(0, 12)):
        messages.append({"type": "human", "content": f"turn {turn + 1}"})
        random_turn(rng, idents, aliased, messages)
    return {"messages": messages, "allowed": allowed, "aliases": aliases,
            "decay": rng.choice([-1, 0, 1, 1, 2, 2, 3, 5, 5, 8]),
            "max": rng.choice([-1, 0, 1, 2, 2, 3, 3, 4, 6])}


# ---- both sides -----------------------------------------------------------------------------

def as_upstream(messages: list[dict]) -> list[dict]:
    """The history in upstream's vocabulary: every load call becomes get_skill(skill_name=...)."""
    keys = {"get_skill": ("skill_name", "name"), "load_skill": ("name", "skill_name")}
    out = []
    for msg in messages:
        if msg["type"] == "ai":
            calls = []
            for call in msg["tool_calls"]:
                if call["name"] in keys:
                    present = [call["args"][k] for k in keys[call["name"]] if k in call["args"]]
                    call = {**call, "name": "get_skill", "args": {"skill_name": (present or [""])[0]}}
                calls.append(call)
            msg = {**msg, "tool_calls": calls}
        out.append(msg)
    return out


def to_messages(specs: list[dict]) -> list:
    kinds = {"human": HumanMessage, "system": SystemMessage}
    out = []
    for spec in specs:
        if spec["type"] in kinds:
            out.append(kinds[spec["type"]](spec["content"]))
        elif spec["type"] == "ai":
            out.append(AIMessage(spec["content"], tool_calls=spec["tool_calls"]))
        else:
            out.append(ToolMessage(spec["content"], tool_call_id=spec["tool_call_id"],
                                   name=spec["name"], status=spec["status"]))
    return out


def cuts_for(rng: random.Random, messages: list[dict]) -> list[int]:
    """The whole history, through each HumanMessage, and two random cut points."""
    turn_starts = [i + 1 for i, m in enumerate(messages) if m["type"] == "human"]
    return [len(messages), *turn_starts, rng.randint(0, len(messages)), rng.randint(0, len(messages))]


def run_lease_oracle(birdie_env: BirdieEnv, cases: list[dict]) -> dict[str, Any]:
    proc = subprocess.run([str(birdie_env.python), str(ORACLE)], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=300, cwd=birdie_env.venv,
                          env=_venv_env())
    assert proc.returncode == 0, f"lease oracle failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)


def disagreements(case: dict, ours: list, upstream: list[list[str]]) -> list[str]:
    """Where our answers for one case differ from Birdie's (`ours` = its parsed messages)."""
    kw = dict(decay_turns=case["decay"], max_loaded=case["max"])
    aliases = case["aliases"] if case["aliases"] is not None else {n: n for n in case["allowed"]}
    cuts, theirs = case["cuts"], [set(names) for names in upstream]
    turns = len(cuts) - 3
    got = [set(lease_state(ours[:cut], aliases, **kw).names) for cut in cuts]
    got[1:1 + turns] = [set(lease_at_turn(ours, t, aliases, **kw).names) for t in range(1, turns + 1)]
    bad = [f"cut {cut}: ours {sorted(a)} upstream {sorted(b)}"
           for cut, a, b in zip(cuts, got, theirs) if a != b]
    evicted = {name for name, _ in lease_state(ours, aliases, **kw).evicted}
    left = theirs[turns - 1] - theirs[0] if turns >= 2 else set()
    if evicted != left:
        bad.append(f"evicted: ours {sorted(evicted)} upstream {sorted(left)}")
    return bad


def test_leases_equal_upstream_for_random_histories(birdie_env):
    """Hundreds of seeded random histories and settings: our active set equals Birdie's for the
    whole history, at every turn's first model call and at random cuts; our evicted names are
    exactly Birdie's set at the previous turn's start minus its set now."""
    rng = random.Random(SEED)
    cases = []
    for n in range(CASES):
        case = random_case(rng, aliased=n % 3 == 2)
        case["cuts"] = cuts_for(rng, case["messages"])
        cases.append(case)
    sent = [{**c, "messages": as_upstream(c["messages"])} if n % 3 == 2 else c
            for n, c in enumerate(cases)]
    answer = run_lease_oracle(birdie_env, sent)
    assert answer["version"] == "0.15.1" and str(birdie_env.venv) in answer["module"]
    assert len(answer["results"]) == len(cases)
    failures = []
    for n, (case, upstream) in enumerate(zip(cases, answer["results"])):
        failures += [f"case {n}: {d}" for d in disagreements(case, to_messages(case["messages"]), upstream)]
    assert failures == []
    checked = sum(len(c["cuts"]) for c in cases)
    assert checked > 4 * CASES  # the turn-start cuts really were exercised
    loaded = sum(bool(r) for result in answer["results"] for r in result)
    assert loaded > CASES // 2  # and many answers were non-empty
