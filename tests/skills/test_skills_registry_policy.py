from birdie_tui.skills import LoadResult, SkillError, SkillPolicy, SkillRegistry, load_skills


def _registry(make_skill, skills_root, simple_skill) -> SkillRegistry:
    make_skill("fs", simple_skill("Files", ("ls_it", "cat_it"), tags="[filesystem, Local]"))
    make_skill("sh", simple_skill("Shell", ("run_it",), tags="[shell, local]"))
    make_skill("off", simple_skill("Weather", ("wx",), enabled_by_default="false"))
    make_skill("bad", "---\n")
    return SkillRegistry(load_skills([skills_root]))


def test_registry_lookups(make_skill, skills_root, simple_skill):
    """The registry finds skills by name in any case and tools by name, and keeps load errors."""
    reg = _registry(make_skill, skills_root, simple_skill)
    assert reg.names() == ["Files", "Shell", "Weather"] and len(reg) == 3
    assert reg.get("shell").name == "Shell" and "FILES" in reg and "nope" not in reg
    assert reg.tool("run_it").skill == "Shell" and reg.tool("nope") is None
    assert reg.skill_for_tool("cat_it").name == "Files"
    assert len(reg.errors) == 1


def test_registry_replace_swaps_everything(make_skill, skills_root, simple_skill):
    """Replacing a registry's load result swaps its skills, tools and errors."""
    reg = _registry(make_skill, skills_root, simple_skill)
    reg.replace(LoadResult(errors=[SkillError("p", None, "m")]))
    assert len(reg) == 0 and reg.tool("run_it") is None and reg.skill_for_tool("run_it") is None
    assert reg.errors == [SkillError("p", None, "m")]


def test_policy_resolution_order(make_skill, skills_root, simple_skill):
    """A session's enable/disable lists, in any case, override each skill's default."""
    reg = _registry(make_skill, skills_root, simple_skill)
    files, shell, weather = reg.skills()
    policy = SkillPolicy()
    assert [s.name for s in policy.allowed(reg)] == ["Files", "Shell"]
    policy = SkillPolicy(enabled=["weather", "shell"], disabled=["SHELL"])
    assert policy.is_enabled(weather) and not policy.is_enabled(shell) and policy.is_enabled(files)
    assert policy.enabled_names == ["weather"] and policy.disabled_names == ["SHELL"]
    policy.enable("Shell")
    assert policy.is_enabled(shell) and policy.disabled_names == [] and policy.enabled_names == ["Shell", "weather"]
    policy.disable("WEATHER")
    assert not policy.is_enabled(weather) and policy.enabled_names == ["Shell"] and policy.disabled_names == ["WEATHER"]
    policy.disable("files")
    assert [s.name for s in policy.allowed(reg)] == ["Shell"]
    assert policy.is_enabled("unknown", default=True) and not policy.is_enabled("unknown")
