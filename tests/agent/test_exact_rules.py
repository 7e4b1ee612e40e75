""""Always allow this exact call" saves a rule in the rule grammar that matches that call and
no other: a shell tool by its script (`run_bash(git status)`), any other tool by every one of
its arguments (`write_file(path="a.md", content="hi")`); rules saved by earlier versions still
mean their call."""

from __future__ import annotations

import json
import shutil
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birdie_tui.agent.approvals import (
    ApprovalAnswer,
    ApprovalPolicy,
    ApprovalRequest,
    command_text,
    escape_glob,
)
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.rule_args import CONTROL, named_args
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills.models import SkillTool
from birdie_tui.skills.parser import parse_skill_file

from .conftest import collect

REPO = Path(__file__).resolve().parents[2]
RUN_BASH = next(t for t in parse_skill_file(REPO / "skills" / "shell" / "SKILL.MD").tools
                if t.name == "run_bash")
WRITE_FILE = next(t for t in parse_skill_file(REPO / "skills" / "filesystem" / "SKILL.MD").tools
                  if t.name == "write_file")
PY_TOOL = SkillTool(name="get_weather", description="", entrypoint="python:tools.weather")
GIT_LOG = SkillTool(name="git_log", description="", entrypoint="bash:git log -n {count}",
                    schema={"properties": {"count": {"type": "integer"}}})


def saved_rule(tool: SkillTool, args: dict) -> str:
    """The rule "always allow this exact call" saves for this call."""
    request = ApprovalRequest(id="1", name=tool.name, args=args, command=command_text(tool, args))
    return request.rule_for("command")


def verdict(rule: str, tool: SkillTool, args: dict) -> str:
    policy = ApprovalPolicy.build(mode="ask", settings_rules={}, session_rules=[rule],
                                  approved_skills=[])
    return policy.decide(name=tool.name, command=command_text(tool, args), args=args,
                         skill_name="S", gated=True, why="asks").action


@pytest.mark.parametrize("tool,args,rule", [
    (RUN_BASH, {"command": "git status"}, "run_bash(git status)"),
    (RUN_BASH, {"command": "ls -la [a]*?"}, "run_bash(ls -la [[]a][*][?])"),
    (WRITE_FILE, {"path": "notes.md", "content": "hello *"},
     'write_file(path="notes.md", content="hello [*]")'),
    (PY_TOOL, {"city": "Oslo", "days": 3}, 'get_weather(city="Oslo", days=3)'),
    (PY_TOOL, {"days": 3}, 'get_weather(days="3")'),
    (GIT_LOG, {"count": 5}, 'git_log(count="5")'),
    (PY_TOOL, {}, "get_weather()"),
])
def test_the_saved_rule_is_written_in_the_rule_grammar(tool, args, rule):
    """run_bash saves its script, globs escaped; every other tool saves all its arguments by
    value (a lone number by its text, so it is not read as the one-argument `key=glob`)."""
    assert saved_rule(tool, args) == rule
    assert verdict(rule, tool, args) == "allow"


@pytest.mark.parametrize("tool,args,changed", [
    (WRITE_FILE, {"path": "notes.md", "content": "hello *"}, {"content": "hello x"}),
    (WRITE_FILE, {"path": "notes.md", "content": "hello *"}, {"path": "other.md"}),
    (WRITE_FILE, {"path": "notes.md", "content": "hello *"}, {"timeout_s": 5}),
    (PY_TOOL, {"city": "Oslo", "days": 3}, {"days": 4}),
    (PY_TOOL, {"city": "Oslo", "days": 3}, {"days": "3"}),
    (PY_TOOL, {"city": "Oslo", "days": 3}, {"unit": "C"}),
    (PY_TOOL, {"days": 3}, {"city": "Oslo"}),
    (PY_TOOL, {}, {"city": "Oslo"}),
    (RUN_BASH, {"command": "echo '*'"}, {"command": "echo *"}),
    (RUN_BASH, {"command": "rm -r '~'"}, {"command": "rm -r ~"}),
    (RUN_BASH, {"command": "echo '$HOME'"}, {"command": "echo $HOME"}),
    (RUN_BASH, {"command": "git status"}, {"command": "git status; touch x"}),
])
def test_the_saved_rule_refuses_the_call_with_one_argument_changed(tool, args, changed):
    """One argument changed, added or given another type, or a quoted word written so that bash
    expands it (`'*'` → `*`, `'~'` → `~`): the saved rule does not cover it, so it is asked."""
    rule = saved_rule(tool, args)
    assert verdict(rule, tool, args) == "allow"
    assert verdict(rule, tool, {**args, **changed}) == "ask"


def test_without_an_argument_the_call_is_not_covered():
    """A call with an argument fewer than the saved one is another call."""
    rule = saved_rule(PY_TOOL, {"city": "Oslo", "days": 3})
    assert verdict(rule, PY_TOOL, {"city": "Oslo"}) == "ask"


def test_control_characters_in_a_value_are_spelled_out_in_the_rule():
    """A value holding an escape, a bidi override or a line break is saved with each spelled
    as \\uXXXX (the rule text hides nothing), and still matches that very value."""
    args = {"path": "a.md", "content": "x\x1b]52;c;ZXZpbA==\x07\u202e\r\n\x85"}
    rule = saved_rule(WRITE_FILE, args)
    assert not CONTROL.search(rule) and "\u202e" not in rule and "\\u001b]52" in rule
    assert verdict(rule, WRITE_FILE, args) == "allow"
    assert verdict(rule, WRITE_FILE, {**args, "content": "x"}) == "ask"


def test_rules_saved_by_earlier_versions_keep_meaning_their_call():
    """The rendered-template form an earlier version saved for write_file, and the
    `bash -c '…'` form for run_bash, still allow their call and nothing else."""
    args = {"path": "notes.md", "content": "hello *"}
    old = f"write_file({escape_glob(command_text(WRITE_FILE, args))})"
    assert "printf" in old
    assert verdict(old, WRITE_FILE, args) == "allow"
    assert verdict(old, WRITE_FILE, {**args, "content": "hello x"}) == "ask"
    assert verdict("run_bash(bash -c 'git status')", RUN_BASH, {"command": "git status"}) == "allow"


def test_a_lone_key_glob_keeps_meaning_one_argument():
    """`key=glob` (not JSON) and a lone `key=5` stay the one-argument form: other arguments
    are free; `key="…"` or two keys name every argument."""
    assert named_args("path=docs/*") is None and named_args("days=3") is None
    assert named_args('path="docs/*"') == {"path": "docs/*"}
    assert named_args('a=1, "b c"=[2]') == {"a": 1, "b c": [2]}
    assert verdict("get_weather(days=3)", PY_TOOL, {"days": 3, "city": "Oslo"}) == "allow"
    assert verdict('get_weather(city="O*")', PY_TOOL, {"city": "Oslo"}) == "allow"
    assert verdict('get_weather(city="O*")', PY_TOOL, {"city": "Oslo", "days": 3}) == "ask"


VALUES = st.one_of(st.text(max_size=20), st.integers(), st.booleans(), st.none(),
                   st.lists(st.integers(), max_size=3))
KEYS = st.text(alphabet=string.ascii_letters + "_- ", min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(args=st.dictionaries(KEYS, VALUES, max_size=4), key=KEYS, value=VALUES)
def test_property_the_saved_rule_is_that_call_only(args, key, value):
    """For any arguments, the saved rule allows the same call, and asks when one argument is
    set to another value (or added)."""
    rule = saved_rule(PY_TOOL, args)
    assert verdict(rule, PY_TOOL, args) == "allow"
    changed = {**args, key: value}
    if json.dumps(changed, sort_keys=True) != json.dumps(args, sort_keys=True):
        assert verdict(rule, PY_TOOL, changed) == "ask"


async def test_the_engine_runs_the_same_call_unasked_and_asks_for_another(
        isolated_home, tmp_path, monkeypatch):
    """End to end with the bundled write_file: "always allow this exact call" saves the
    argument rule in the session JSON; the same write runs unasked, another content is asked."""
    skills = tmp_path / "skills"
    shutil.copytree(REPO / "skills" / "filesystem", skills / "filesystem")
    monkeypatch.chdir(tmp_path)
    engine = Engine(EngineOptions(skills_dirs=[skills], tool_timeout=10,
                                  provider=ProviderConfig(vendor="offline")))
    await engine.start()
    asked: list = []

    async def always(request):
        asked.append(request)
        return ApprovalAnswer("allow", remember="command")

    call = 'call write_file {"path": "notes.md", "content": %s}'
    try:
        await engine.open_session()
        await collect(engine, call % '"hello *"', approver=always)
        saved = json.loads(engine.paths.session_file(engine.user, engine.session.id).read_text())
        assert saved["approval_rules"] == ['write_file(path="notes.md", content="hello [*]")']
        assert saved["approval_rules"] == [asked[0].rule_for("command")]
        (tmp_path / "notes.md").unlink()
        await collect(engine, call % '"hello *"', approver=always)
        assert len(asked) == 1 and (tmp_path / "notes.md").read_text() == "hello *"
        await collect(engine, call % '"hello x"', approver=always)
        assert len(asked) == 2
    finally:
        await engine.aclose()
