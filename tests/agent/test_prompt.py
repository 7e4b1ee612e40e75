from __future__ import annotations

from pathlib import Path

from birdie_tui.agent.prompt import build_system_prompt
from birdie_tui.skills.models import Skill


def skill(name, **kw):
    return Skill(name=name, description=f"{name} skill", path=Path(f"/x/{name}/SKILL.MD"), **kw)


def test_tiers_and_report():
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
    prompt, report = build_system_prompt([], "hi")
    assert "No skills are enabled" in prompt and report.skills == []
