"""Reading files shipped inside a skill folder, and the load_skill description."""

import os

import pytest

from birdie_tui.skills import bundled_skills_dir, load_skills, read_skill_file


@pytest.fixture
def agent_skill(tmp_path):
    d = tmp_path / "skills" / "ag"
    (d / "references").mkdir(parents=True)
    (d / "references" / "r.md").write_text("R" * 50)
    (d / "SKILL.md").write_text("---\nname: ag\ndescription: d\n---\nInstructions.\n")
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", d / "references" / "link.md")
    (skill,) = load_skills([tmp_path / "skills"]).skills
    return skill


def test_read_inside_folder(agent_skill):
    """Files inside an agent skill's folder can be read, with long ones truncated."""
    assert read_skill_file(agent_skill, "references/r.md") == "R" * 50
    assert read_skill_file(agent_skill, "./references/../SKILL.md").startswith("---")
    assert read_skill_file(agent_skill, "references/r.md", max_chars=10).startswith("R" * 10 + "\n… [truncated: 40")


@pytest.mark.parametrize("rel, fragment", [
    ("../secret.txt", "outside"), ("references/../../secret.txt", "outside"),
    ("references/link.md", "outside"), ("/etc/passwd", "relative"), ("references", "directory"),
    ("nope.md", "does not exist"), ("", "no file"),
])
def test_escapes_rejected(agent_skill, rel, fragment):
    """Paths escaping the skill folder, absolute, missing or a folder are rejected."""
    with pytest.raises(ValueError, match=fragment):
        read_skill_file(agent_skill, rel)


def test_bundled_agent_skill_resources(agent_skill):
    """The bundled git-helper skill lists and reads its reference file."""
    (gh,) = [s for s in load_skills([bundled_skills_dir()]).skills if s.name == "git-helper"]
    assert "references/conventional-commits.md" in gh.resources
    assert "Conventional Commits" in read_skill_file(gh, "references/conventional-commits.md")
