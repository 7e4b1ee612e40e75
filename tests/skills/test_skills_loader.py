from birdie_tui.skills import load_skills


def test_one_bad_file_among_good_ones(make_skill, skills_root, simple_skill):
    """One broken SKILL.MD is reported while good skills still load; stray entries are skipped."""
    make_skill("a", simple_skill("alpha", ("t1",)))
    make_skill("b", "---\nname: broken\n")
    make_skill("c", simple_skill("gamma"))
    (skills_root / "not-a-skill").mkdir()
    (skills_root / "stray.txt").write_text("x")
    result = load_skills([skills_root])
    assert [s.name for s in result.skills] == ["alpha", "gamma"]
    assert len(result.errors) == 1
    assert result.errors[0].path == str(skills_root / "b" / "SKILL.MD") and "not closed" in result.errors[0].message


def test_duplicate_names_across_dirs_keep_first(tmp_path, make_skill, skills_root, simple_skill):
    """A skill name repeated (any case) across folders keeps the first and reports the second."""
    make_skill("one", simple_skill("Same"))
    other = tmp_path / "other"
    (other / "two").mkdir(parents=True)
    (other / "two" / "SKILL.MD").write_text(simple_skill("same"))
    result = load_skills([skills_root, other])
    assert [s.path for s in result.skills] == [skills_root / "one" / "SKILL.MD"]
    (err,) = result.errors
    assert "duplicate skill name 'same'" in err.message and str(skills_root / "one" / "SKILL.MD") in err.message


def test_duplicate_tool_names_across_skills_reject_later_skill(make_skill, skills_root, simple_skill):
    """A tool name already taken by another skill rejects the later skill, with a line."""
    make_skill("a", simple_skill("a", ("shared", "x")))
    make_skill("b", simple_skill("b", ("y", "shared")))
    result = load_skills([skills_root])
    assert [s.name for s in result.skills] == ["a"]
    (err,) = result.errors
    assert "tool 'shared' is already defined by skill 'a'" in err.message and err.line is not None


def test_missing_dir_is_an_error_not_an_exception(tmp_path, make_skill, skills_root, simple_skill):
    """A missing skills folder or a file given as one is reported, not raised."""
    make_skill("a", simple_skill("a"))
    result = load_skills([tmp_path / "nope", skills_root, skills_root / "a" / "SKILL.MD"])
    assert [s.name for s in result.skills] == ["a"]
    assert [e.message for e in result.errors] == ["skills directory does not exist", "skills directory is not a directory"]


def test_both_file_names_loads_birdie_and_reports(make_skill, skills_root, simple_skill):
    """A folder with both SKILL.MD and SKILL.md loads the Birdie file and reports the clash."""
    make_skill("both", simple_skill("upper"))
    if (skills_root / "both" / "SKILL.md").exists():  # case-insensitive filesystem: nothing to test
        return
    make_skill("both", "---\nname: lower\ndescription: d\n---\n", "SKILL.md")
    result = load_skills([skills_root])
    assert [s.name for s in result.skills] == ["upper"]
    assert "both SKILL.MD and SKILL.md" in result.errors[0].message


def test_order_is_deterministic(make_skill, skills_root, simple_skill):
    """Skills load in folder-name order, whatever their file name."""
    for folder in ("zeta", "alpha", "mid"):
        make_skill(folder, simple_skill(folder))
    make_skill("agent", "---\nname: agent\ndescription: d\n---\nx\n", "SKILL.md")
    result = load_skills([skills_root])
    assert [s.name for s in result.skills] == ["agent", "alpha", "mid", "zeta"]
