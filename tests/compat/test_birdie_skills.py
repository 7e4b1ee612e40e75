"""Every skill the real Birdie ships loads with our loader exactly as Birdie itself reads it.

Birdie's view comes from Birdie's own parser, run by its own interpreter (see conftest.py and
birdie_oracle.py); nothing here imitates Birdie's skills or its parser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from birdie_tui.agent.prompt import build_system_prompt
from birdie_tui.skills import Skill, load_skills

from .conftest import BirdieEnv

pytestmark = [pytest.mark.compat, pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)]


@pytest.fixture(scope="session")
def ours(birdie_env: BirdieEnv) -> dict[str, Skill]:
    result = load_skills([birdie_env.skills_dir])
    assert [str(e) for e in result.errors] == []
    return {s.name: s for s in result.skills}


@pytest.fixture(scope="session")
def theirs(birdie_view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in birdie_view["skills"]}


def _tools_seen_by_birdie(skill: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": t["name"], "description": t["description"], "entrypoint": t["entrypoint"],
             "properties": list((t["schema"] or {}).get("properties") or {}),
             "required": list((t["schema"] or {}).get("required") or [])} for t in skill["tools"]]


def _tools_seen_by_us(skill: Skill) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "entrypoint": t.entrypoint,
             "properties": list(t.schema.get("properties") or {}),
             "required": list(t.schema.get("required") or [])} for t in skill.tools]


def test_the_oracle_is_birdie_itself(birdie_env: BirdieEnv, birdie_view: dict[str, Any]):
    """The oracle runs the pinned Birdie from its venv, which loads its skills without errors."""
    assert Path(birdie_view["module"]).is_relative_to(birdie_env.site_packages)
    assert birdie_view["version"] == birdie_env.version
    assert birdie_view["errors"] == []  # Birdie itself loads all of them
    assert birdie_view["skills"], "Birdie ships no skills?"


def test_every_bundled_skill_loads_without_errors(ours, theirs):
    """Our loader loads exactly the skills Birdie ships, and no others."""
    assert sorted(ours) == sorted(theirs)


def test_tools_schemas_and_entrypoints_match(ours, theirs):
    """Each skill's tools, schemas and entrypoints match what Birdie sees."""
    for name, skill in theirs.items():
        assert _tools_seen_by_us(ours[name]) == _tools_seen_by_birdie(skill), name


def test_triggers_and_flags_match(ours, theirs):
    """Triggers, flags, version and MCP server command match Birdie's for every skill."""
    for name, skill in theirs.items():
        mine = ours[name]
        assert mine.triggers == skill["triggers"], name
        assert mine.always_inject is skill["always_inject"], name
        assert mine.enabled_by_default is skill["enabled_by_default"], name
        assert mine.version == skill["version"], name
        assert (mine.mcp_server is None) == (skill["mcp_server"] is None), name
        if mine.mcp_server is not None:
            assert (mine.mcp_server.command, mine.mcp_server.args) == (
                skill["mcp_server"]["command"], skill["mcp_server"]["args"]), name


def test_permissions_match(ours, theirs):
    """Permissions lists match Birdie's, read as capabilities with no rules."""
    # Birdie 0.1.5 writes `## Permissions` as a YAML list (`- local_shell`).
    assert any(s["permissions"] for s in theirs.values()), "no Birdie skill declares permissions"
    for name, skill in theirs.items():
        assert list(ours[name].permissions) == skill["permissions"], name
        assert ours[name].permission_rules == {}, name


def test_injected_bodies_match(ours, theirs):
    """Knowledge and always-inject skill bodies match the text Birdie injects."""
    # Knowledge and always_inject skills put their prose into the prompt: same text as Birdie.
    for name, skill in theirs.items():
        if not skill["tools"] or skill["always_inject"]:
            assert ours[name].body == skill["body"], name


def test_whole_word_triggers_inject_what_birdie_injects(birdie_env: BirdieEnv, ours, theirs):
    """Whole-word trigger phrases, in any case, inject the same skills as in Birdie."""
    phrases = [t for s in theirs.values() if not s["tools"] for t in s["triggers"]]
    assert phrases, "Birdie ships no trigger phrases?"
    messages = [f"Help me with {p.upper()}, please." for p in phrases] + ["What's the weather?"]
    birdie = birdie_env.run_oracle(str(birdie_env.skills_dir), *messages)["triggered"]
    for message in messages:
        _, report = build_system_prompt(list(ours.values()), message)
        mine = [s.name for s in report.skills if s.reason.startswith("trigger:")]
        assert mine == birdie[message], message


def test_a_trigger_inside_a_word_is_where_we_differ_from_birdie(birdie_env: BirdieEnv, ours):
    """A trigger inside a word injects in Birdie (substring match) but not here (whole word)."""
    # Birdie matches substrings, so "passhash" injects its ssh skill; we match whole words.
    message = "reset my passhash"
    assert birdie_env.run_oracle(str(birdie_env.skills_dir), message)["triggered"][message] == ["ssh"]
    _, report = build_system_prompt(list(ours.values()), message)
    assert [s.name for s in report.skills if s.reason.startswith("trigger:")] == []


def test_tools_of_skills_declaring_permissions_are_gated_as_upstream(ours, theirs):
    """Upstream Birdie asks before any tool of a skill that declares a permission (its
    `tool_approval_callback` gate); ours gates exactly the same tools of its bundled skills."""
    from birdie_tui.agent.approvals import ApprovalPolicy

    policy = ApprovalPolicy()
    for name, skill in theirs.items():
        for tool in ours[name].tools:
            gated = policy.gate(name=tool.name, args={}, skill=ours[name], tool=tool)[0]
            assert gated is bool(skill["permissions"]), (name, tool.name)
