"""Approvals: which calls are gated, the rules and modes that decide them, and a
pending step that lives in the checkpoint — asked again after a restart, answered once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from birdie_tui.agent.approvals import (
    ApprovalAnswer,
    ApprovalPolicy,
    ApprovalRequest,
    escape_glob,
    outside_paths,
    proposed_diff,
)
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills.models import Skill, SkillTool

from .conftest import collect


def skill(name="S", permissions=(), rules=None, tools=()):
    return Skill(name=name, description="d", path=Path("/x/SKILL.MD"),
                 permissions=tuple(permissions), permission_rules=rules or {}, tools=list(tools))


def decide(policy, name="t", command="c", skill_name="S", gated=True):
    return policy.decide(name=name, command=command, skill_name=skill_name, gated=gated,
                         why="why").action


# ------------------------------------------------------------------------------ the policy
def test_a_declared_capability_gates_every_tool_of_its_skill():
    """Upstream Birdie's rule: any `## Permissions` capability gates the skill's tools."""
    policy = ApprovalPolicy()
    assert policy.gate(name="t", args={}, skill=skill(permissions=["local_shell"]), tool=None)[0]
    assert policy.gate(name="t", args={}, skill=skill(rules={"require_approval": ["t"]}),
                       tool=None)[0]
    assert not policy.gate(name="u", args={}, skill=skill(rules={"require_approval": ["t"]}),
                           tool=None)[0]
    assert not policy.gate(name="t", args={}, skill=skill(), tool=None)[0]
    never = SkillTool(name="t", description="", entrypoint="bash:true", approval="never")
    assert not policy.gate(name="t", args={}, skill=skill(permissions=["x"]), tool=never)[0]
    ask = SkillTool(name="t", description="", entrypoint="bash:true", approval="ask")
    assert policy.gate(name="t", args={}, skill=skill(), tool=ask)[0]


def test_rule_order_deny_readonly_ask_allow_skill_auto():
    """Deny rule, read-only, ask rule, allow rule, approved skill, auto mode: first match wins."""
    build = ApprovalPolicy.build
    assert decide(build(mode="ask", settings_rules={}, session_rules=[], approved_skills=[])) == "ask"
    assert decide(build(mode="auto", settings_rules={}, session_rules=[], approved_skills=[])) == "allow"
    assert decide(build(mode="read-only", settings_rules={"allow": ["t"]}, session_rules=[],
                        approved_skills=[])) == "deny"
    assert decide(build(mode="auto", settings_rules={"deny": ["t(c*)"]}, session_rules=[],
                        approved_skills=[])) == "deny"
    assert decide(build(mode="ask", settings_rules={"ask": ["t"]}, session_rules=["t"],
                        approved_skills=[])) == "ask"  # an ask rule beats an allow rule
    assert decide(build(mode="ask", settings_rules={}, session_rules=["t(c)"],
                        approved_skills=[])) == "allow"
    assert decide(build(mode="ask", settings_rules={}, session_rules=[],
                        approved_skills=["S"])) == "allow"
    # Not gated and no rule: runs without a word; read-only does not stop it.
    assert decide(build(mode="read-only", settings_rules={}, session_rules=[],
                        approved_skills=[]), gated=False) == "allow"
    # Garbage in a hand-edited file is ignored, never a crash.
    assert decide(build(mode="nonsense", settings_rules={"allow": [3, None, ""]},
                        session_rules=[{"x": 1}], approved_skills=[])) == "ask"


def test_an_exact_command_rule_matches_only_that_command():
    """"Always this command" saves a rule that matches that command line and no other, glob characters included."""
    request = ApprovalRequest(id="1", name="run_bash", args={"command": "ls -la [a]*?"},
                              command="bash -c 'ls -la [a]*?'")
    rule = request.rule_for("command")
    assert rule == f"run_bash({escape_glob('ls -la [a]*?')})" == "run_bash(ls -la [[]a][*][?])"
    policy = ApprovalPolicy.build(mode="ask", settings_rules={}, session_rules=[rule],
                                  approved_skills=[])
    assert decide(policy, name="run_bash", command="bash -c 'ls -la [a]*?'") == "allow"
    assert decide(policy, name="run_bash", command="bash -c 'ls -la a'") == "ask"
    assert decide(policy, name="run_bash", command="bash -c 'ls -la [a]*? ; rm -rf ~'") == "ask"


def test_paths_outside_the_working_directory_symlinks_included(tmp_path):
    """Path arguments that resolve outside the working directory (symlinks followed) are named; other arguments are not paths."""
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "escape").symlink_to(tmp_path)
    schema = {"properties": {"path": {"type": "string"}, "note": {"type": "string"}}}
    assert outside_paths({"path": "sub/x"}, schema, work) == ()
    assert outside_paths({"path": "."}, schema, work) == ()
    assert outside_paths({"path": "../x"}, schema, work) == ("../x",)
    assert outside_paths({"path": "/etc/passwd"}, schema, work) == ("/etc/passwd",)
    assert outside_paths({"path": "escape/secret"}, schema, work) == ("escape/secret",)
    assert outside_paths({"path": "~"}, schema, work) == ("~",)
    assert outside_paths({"note": "/etc/passwd"}, schema, work) == ()  # not a path argument
    tool = SkillTool(name="read_file", description="", entrypoint="bash:cat -- {path}",
                     schema=schema, approval="outside_workdir")
    policy = ApprovalPolicy(workdir=work)
    assert not policy.gate(name="read_file", args={"path": "sub/x"}, skill=skill(), tool=tool)[0]
    gated, why, outside = policy.gate(name="read_file", args={"path": "escape/x"},
                                      skill=skill(), tool=tool)
    assert gated and "outside the working directory" in why and outside == ("escape/x",)


def test_a_write_or_an_edit_shows_a_unified_diff(tmp_path):
    """A write (path + content) or an edit (old/new) gets a unified diff against the file as it is; a read gets none."""
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    diff = proposed_diff({"path": "a.txt", "content": "one\nTWO\n"}, tmp_path)
    assert "-two\n" in diff and "+TWO\n" in diff and diff.startswith("--- a.txt")
    new = proposed_diff({"file_path": "new.txt", "content": "hi"}, tmp_path)
    assert "--- /dev/null" in new and "+hi" in new and "No newline" in new
    edit = proposed_diff({"path": "a.txt", "old_string": "one", "new_string": "1"}, tmp_path)
    assert "-one\n" in edit and "+1\n" in edit
    assert "not in the file" in proposed_diff(
        {"path": "a.txt", "old_string": "zzz", "new_string": "1"}, tmp_path)
    assert proposed_diff({"path": "a.txt"}, tmp_path) is None  # a read
    assert "too large" in proposed_diff({"path": "a.txt", "content": "x" * 300_000}, tmp_path)


def test_an_unreadable_answer_is_a_denial():
    """A resume value the engine cannot read never runs a call."""
    assert ApprovalAnswer.from_value("yes").decision == "deny"
    assert ApprovalAnswer.from_value({"decision": "allow", "remember": "everything"}
                                     ) == ApprovalAnswer("allow")
    assert ApprovalAnswer.from_value(True).decision == "allow"


# ------------------------------------------------------------------------------ the engine
GUARDED = 'call touch_file {{"path": "{}"}}'


def answer_with(answer, asked):
    async def approver(request):
        asked.append(request)
        return answer
    return approver


async def test_a_pending_step_survives_a_restart_and_is_answered_once(skills_dir, tmp_path):
    """No approver: the turn stops, the step is in the checkpoint with a valid history; another
    engine (a restart) finds the same request and finishes the turn."""
    target = tmp_path / "made"
    options = EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"))
    first = Engine(options)
    await first.start()
    try:
        await first.open_session(None)
        events = await collect(first, GUARDED.format(target))
        pending = [e for e in events if e.type == "approval"]
        assert [e.decision for e in pending] == ["pending"] and events[-1].type == "approval"
        sid, call_id = first.session.id, pending[0].id
        assert history_problems(await first.messages()) == []
    finally:
        await first.aclose()
    assert not target.exists()

    second = Engine(options)
    await second.start()
    try:
        await second.open_session(sid)
        requests = await second.pending_approvals()
        assert [(r.id, r.name, r.skill, r.args) for r in requests] == [
            (call_id, "touch_file", "Guarded", {"path": str(target)})]
        assert "touch" in requests[0].command
        events = [e async for e in second.run_turn("", resume={call_id: ApprovalAnswer("allow")})]
        assert [e.decision for e in events if e.type == "approval"] == ["approved"]
        assert events[-1].type == "done" and target.exists()
        assert await second.pending_approvals() == []
        history = await second.messages()
        assert history_problems(history) == []
        assert sum(m.type == "human" for m in history) == 1  # resumed, not a new turn
    finally:
        await second.aclose()


async def test_always_this_command_is_saved_and_asked_no_more(engine, tmp_path):
    """"Always this command" is saved in the session JSON; the same command runs unasked, another is asked."""
    target = tmp_path / "made"
    asked: list = []
    allow_command = answer_with(ApprovalAnswer("allow", remember="command"), asked)
    await collect(engine, GUARDED.format(target), approver=allow_command)
    assert len(asked) == 1 and target.exists()
    saved = json.loads(engine.paths.session_file(engine.user, engine.session.id).read_text())
    assert saved["approval_rules"] == [asked[0].rule_for("command")]
    target.unlink()
    events = await collect(engine, GUARDED.format(target), approver=allow_command)
    assert len(asked) == 1 and target.exists()  # same command: not asked again
    assert [e.decision for e in events if e.type == "approval"] == ["approved"]
    await collect(engine, GUARDED.format(tmp_path / "other"), approver=allow_command)
    assert len(asked) == 2  # another command is asked


async def test_always_this_skill_is_upstreams_approved_skills(engine, tmp_path):
    """"Always this skill" is upstream Birdie's approved_skills, and it is honoured next time."""
    asked: list = []
    await collect(engine, GUARDED.format(tmp_path / "a"),
                  approver=answer_with(ApprovalAnswer("allow", remember="skill"), asked))
    saved = json.loads(engine.paths.session_file(engine.user, engine.session.id).read_text())
    assert saved["approved_skills"] == ["Guarded"]
    await collect(engine, GUARDED.format(tmp_path / "b"),
                  approver=answer_with(ApprovalAnswer("deny"), asked))
    assert len(asked) == 1 and (tmp_path / "b").exists()


async def test_a_denial_with_a_reason_reaches_the_model(engine, tmp_path):
    """A denial's reason is in the tool result the model reads (and in the history)."""
    asked: list = []
    events = await collect(engine, GUARDED.format(tmp_path / "a"), approver=answer_with(
        ApprovalAnswer("deny", reason="use /tmp/safe instead"), asked))
    result = next(e for e in events if e.type == "tool_result")
    assert result.error and "use /tmp/safe instead" in result.content
    tool_messages = [m for m in await engine.messages() if isinstance(m, ToolMessage)]
    assert "use /tmp/safe instead" in tool_messages[-1].content
    assert not (tmp_path / "a").exists()


async def test_modes_read_only_and_auto(engine, tmp_path):
    """Read-only denies a gated call without asking; auto runs it without asking."""
    asked: list = []
    approver = answer_with(ApprovalAnswer("allow"), asked)
    engine.set_approval_mode("read-only")
    events = await collect(engine, GUARDED.format(tmp_path / "a"), approver=approver)
    assert [e.decision for e in events if e.type == "approval"] == ["denied"]
    assert "read-only" in next(e for e in events if e.type == "tool_result").content
    engine.set_approval_mode("auto")
    await collect(engine, GUARDED.format(tmp_path / "a"), approver=approver)
    assert asked == [] and (tmp_path / "a").exists()


async def test_a_new_message_closes_a_pending_step(engine, tmp_path):
    """A new message instead of an answer closes the pending step ("not run"); the history stays valid."""
    events = await collect(engine, GUARDED.format(tmp_path / "a"))
    assert events[-1].decision == "pending"
    events = await collect(engine, "never mind")
    assert events[-1].type == "done"
    history = await engine.messages()
    assert history_problems(history) == []
    closed = [m for m in history if isinstance(m, ToolMessage)]
    assert "instead of answering" in closed[-1].content
    assert await engine.pending_approvals() == [] and not (tmp_path / "a").exists()


async def test_upstream_approved_skills_in_a_session_file_are_honoured(engine, tmp_path):
    """A session whose JSON says `approved_skills: [Guarded]` (as upstream Birdie writes it)
    runs that skill's tools without asking."""
    await collect(engine, "hello")
    path = engine.paths.session_file(engine.user, engine.session.id)
    data = json.loads(path.read_text())
    data["approved_skills"] = ["Guarded"]
    path.write_text(json.dumps(data))
    await engine.open_session(engine.session.id)
    asked: list = []
    await collect(engine, GUARDED.format(tmp_path / "a"),
                  approver=answer_with(ApprovalAnswer("deny"), asked))
    assert asked == [] and (tmp_path / "a").exists()


@pytest.mark.parametrize("where", ["inside", "outside"])
async def test_the_bundled_filesystem_skill_asks_outside_the_working_directory(
        where, tmp_path, monkeypatch):
    """Inside the working directory the filesystem tools just run; a symlink leading out asks first."""
    from birdie_tui.skills.bundled import bundled_skills_dir

    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("inside")
    (tmp_path / "secret.txt").write_text("outside")
    os.symlink(tmp_path / "secret.txt", work / "link.txt")
    monkeypatch.chdir(work)
    engine = Engine(EngineOptions(skills_dirs=[bundled_skills_dir()],
                                  provider=ProviderConfig(vendor="offline")))
    await engine.start()
    try:
        await engine.open_session(None)
        asked: list = []
        path = "notes.txt" if where == "inside" else "link.txt"
        events = await collect(engine, f'call read_file {{"path": "{path}"}}',
                               approver=answer_with(ApprovalAnswer("deny"), asked))
        result = next(e for e in events if e.type == "tool_result")
        if where == "inside":
            assert asked == [] and result.content == "inside"
        else:
            assert [r.paths_outside for r in asked] == [("link.txt",)]
            assert result.error and "outside" not in result.content
    finally:
        await engine.aclose()
