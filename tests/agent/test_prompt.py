from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birdie_tui.agent.prompt import build_system_prompt, matched_trigger
from birdie_tui.skills.models import Skill


def skill(name, **kw):
    return Skill(name=name, description=f"{name} skill", path=Path(f"/x/{name}/SKILL.MD"), **kw)


def test_tiers_and_report():
    """Prompt tiers: catalog, always-on, triggered and loaded skills, memory; the report agrees."""
    always = skill("plan", always_inject=True, body="Plan first.")
    ssh = skill("ssh", triggers=["ssh", "remote server"], body="Use keys.", tool_tags=["shell"])
    other = skill("docker", triggers=["container"], body="Docker notes.")
    agent = skill("helper", format="agent-skills", body="Be careful.")
    prompt, report = build_system_prompt(
        [always, ssh, other, agent], "Connect to the REMOTE SERVER please",
        loaded=["helper"], memory=["likes tea"], tools_by_tag={"shell": ["run_bash"]})
    assert [(s.name, s.reason) for s in report.skills] == [
        ("plan", "always_inject"), ("ssh", "trigger:remote server"), ("helper", "loaded")]
    assert "--- plan skill context ---\nPlan first." in prompt
    assert "--- ssh skill context ---\nUse keys." in prompt and "run_bash" in prompt
    assert "Docker notes." not in prompt
    assert "--- helper skill (loaded) ---" in prompt
    assert prompt.rstrip().endswith("- likes tea")
    assert "**docker**: docker skill" in prompt  # Tier 1 lists every allowed skill
    assert report.catalog_tokens > 0 and all(s.tokens > 0 for s in report.skills)
    assert report.prompt_tokens >= sum(s.tokens for s in report.skills)


def test_no_skills():
    """With no skills the prompt says none are enabled and the report is empty."""
    prompt, report = build_system_prompt([], "hi")
    assert "No skills are enabled" in prompt and report.skills == []


# ------------------------------------------------------------------------ trigger phrase matching

SSH = skill("ssh", triggers=["ssh", "remote server", "c++", ".env"], body="Use keys.")


@pytest.mark.parametrize("text, expected", [
    ("SSH into it", "ssh"),
    ("start the ssh-agent first", "ssh"),       # '-' is a boundary: this is about SSH
    ("(ssh)", "ssh"),
    ("ssh", "ssh"),
    ("use Ssh.", "ssh"),
    ("a Remote\n  Server, please", "remote server"),  # any whitespace inside a phrase
    ("is c++11 ok?", "c++"),                     # punctuation edges are their own boundary
    ("load my.env file", ".env"),
    ("my passhash leaked", None),                # a trigger inside a word never injects
    ("sshd is down", None),
    ("ssh_config", None),                        # '_' is a word character
    ("remote servers", None),
    ("remoteserver", None),
    ("", None),
])
def test_triggers_match_whole_words_and_phrases(text, expected):
    """Triggers match whole words and phrases, case-insensitively, never inside a longer word."""
    assert matched_trigger(SSH, text) == expected


def test_passhash_does_not_inject_the_ssh_skill():
    """The word passhash does not inject the ssh skill, while SSH does."""
    _, report = build_system_prompt([SSH], "store the passhash")
    assert report.skills == []
    _, report = build_system_prompt([SSH], "SSH into it")
    assert [(s.name, s.reason) for s in report.skills] == [("ssh", "trigger:ssh")]


def test_blank_triggers_never_match():
    """Empty or blank triggers never match a message."""
    assert matched_trigger(skill("k", triggers=["", "   "], body="b"), "anything at all") is None


_ALNUM = st.characters(categories=("Lu", "Ll", "Nd"))  # all `\w` for Python's re
_ASCII_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=8)
_SEPARATOR = st.text(alphabet=" \t\n.,;:!?()[]{}\"'/-*", min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(st.text(_ALNUM, min_size=1, max_size=10), st.text(_ALNUM, max_size=5), st.text(_ALNUM, max_size=5))
def test_property_trigger_inside_a_longer_word_never_matches(trigger, before, after):
    """A trigger embedded in a longer alphanumeric word never matches."""
    word = before + trigger + after
    if word == trigger:  # not embedded: nothing around it
        after = "x"
        word += after
    text = f" {word}."  # nothing else in the message that could match
    assert matched_trigger(skill("k", triggers=[trigger], body="b"), text) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(_ASCII_WORD, min_size=1, max_size=3), _SEPARATOR, _SEPARATOR, st.text(max_size=20),
       st.text(max_size=20), st.sampled_from([str.upper, str.lower, str.title, str.swapcase]))
def test_property_trigger_between_spaces_or_punctuation_always_matches(words, sep1, sep2, left, right, case):
    """A trigger set off by spaces or punctuation matches in any letter case."""
    trigger = " ".join(words)
    text = left + sep1 + case(trigger) + sep2 + right
    assert matched_trigger(skill("k", triggers=[trigger], body="b"), text) == trigger
