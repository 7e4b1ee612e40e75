"""The folders in priority order, hostile files among good ones, the registry's names and a
session's grants, the rendered prompt and output check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from birdie_tui.agent_files.loader import default_agent_dirs, load_agents
from birdie_tui.agent_files.models import AgentDef, AgentLoad
from birdie_tui.agent_files.registry import AgentPolicy, AgentRegistry
from birdie_tui.agent_files.render import input_schema, parse_output, render_prompt
from birdie_tui.skills.bundled import bundled_agents_dir
from birdie_tui.store.paths import BirdiePaths

AGENT = "---\nname: {name}\ndescription: {desc}\n---\n## Prompt\nDo it.\n"


def agent_md(folder: Path, sub: str, name: str, desc: str = "d", file: str = "AGENT.MD") -> Path:
    path = folder / sub / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(AGENT.format(name=name, desc=desc))
    return path


def test_default_folders_in_priority_order(tmp_path):
    """--agents-dir, the project's two folders, the home's, the bundled one; BIRDIE_AGENTS_DIR
    replaces all but --agents-dir."""
    paths, cwd = BirdiePaths(tmp_path / "home"), tmp_path / "proj"
    assert default_agent_dirs(paths, {}, cwd, [tmp_path / "x"]) == [
        (tmp_path / "x", "dir"), (cwd / ".birdie" / "agents", "project"),
        (cwd / ".agents" / "agents", "project"), (tmp_path / "home" / "agents", "home"),
        (bundled_agents_dir(), "bundled")]
    env = {"BIRDIE_AGENTS_DIR": f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"}
    assert default_agent_dirs(paths, env, cwd) == [(tmp_path / "a", "dir"),
                                                   (tmp_path / "b", "dir")]


def test_first_definition_wins_and_later_ones_are_notes(tmp_path):
    """A name in a higher folder shadows a lower one (a note); twice in one folder is a
    problem; a missing folder is nothing."""
    high, low = tmp_path / "high", tmp_path / "low"
    agent_md(high, "a", "Helper", "high")
    shadowed = agent_md(low, "a", "Helper", "low")
    agent_md(low, "b", "Other")
    twice = agent_md(low, "c", "Other", file="AGENT.md")
    load = load_agents([(high, "project"), (tmp_path / "nope", "dir"), (low, "home")])
    assert [(a.name, a.description, a.source) for a in load.agents] == [
        ("Helper", "high", "project"), ("Other", "d", "home")]
    assert load.notes == [f"Helper in {shadowed} is shadowed by {high / 'a' / 'AGENT.MD'}"]
    assert [(p.path, p.line) for p in load.problems] == [(twice, 1)]
    assert "duplicate agent name 'Other'" in load.problems[0].message


def test_hostile_files_never_hide_the_rest(tmp_path):
    """Binary, non-UTF-8, huge, a FIFO, a folder named like a file, a list frontmatter and a
    name with spaces: each one problem, and the good agent beside them loads."""
    root = tmp_path / "agents"
    agent_md(root, "good", "Good")
    (root / "binary.md").write_bytes(b"---\x00\x01\x02")
    (root / "latin1.md").write_bytes(b"---\ndescription: caf\xe9\n---\n")
    (root / "huge.md").write_bytes(b"---\ndescription: d\n---\n" + b"x" * (1024 * 1024 + 10))
    os.mkfifo(root / "fifo.md")
    (root / "dir.md").mkdir()
    (root / "list.md").write_text("---\n- a\n- b\n---\n")
    agent_md(root, "spaced", "My Agent")
    (root / "README.md").write_text("not an agent")
    load = load_agents([(root, "dir")])
    assert [a.name for a in load.agents] == ["Good"]
    by_file = {p.path.name if p.path.name != "AGENT.MD" else p.path.parent.name: p
               for p in load.problems}
    assert sorted(by_file) == ["binary.md", "fifo.md", "huge.md", "latin1.md", "list.md",
                               "spaced"]
    assert "NUL byte" in by_file["binary.md"].message
    assert "not valid UTF-8" in by_file["latin1.md"].message and by_file["latin1.md"].line == 2
    assert "too large" in by_file["huge.md"].message
    assert "FIFO" in by_file["fifo.md"].message
    assert "cannot be a tool name" in by_file["spaced"].message


def test_deepagents_layout_is_named_after_its_folder(tmp_path):
    """deepagents' `<name>/AGENTS.md` is a Markdown agent named after its folder."""
    (tmp_path / "researcher").mkdir()
    (tmp_path / "researcher" / "AGENTS.md").write_text("---\ndescription: d\n---\nResearch.\n")
    agent, = load_agents([(tmp_path, "dir")]).agents
    assert (agent.name, agent.format, agent.system_prompt) == ("researcher", "markdown",
                                                               "Research.")


def registry(*names: str) -> AgentRegistry:
    return AgentRegistry(AgentLoad(agents=[AgentDef(n, "d", "p") for n in names]))


def test_names_resolve_exactly_then_by_case_then_by_a_unique_prefix():
    """Exact first, then the one name equal in any case, then a unique prefix; ambiguity
    resolves to nothing, a miss suggests a near name, each registry has a newer version."""
    reg = registry("Summarizer", "Sum", "reviewer", "Reviewer2")
    assert reg.resolve("Sum") == "Sum" and reg.resolve("summarizer") == "Summarizer"
    assert reg.resolve("summ") == "Summarizer" and reg.resolve("SU") is None
    assert reg.resolve("rev") is None and reg.resolve("reviewer") == "reviewer"
    assert reg.resolve("") is None and reg.resolve("x") is None
    assert reg.suggest("Sumarizer") == "Summarizer"
    assert registry().version < registry().version


def test_grants_are_kept_as_birdie_keeps_them():
    """On when enabled by default or enabled, and not disabled; enabling one takes it off the
    disabled list, disabling off the enabled one."""
    on_default = AgentDef("A", "d", "p", enabled_by_default=True)
    off_default = AgentDef("B", "d", "p")
    policy = AgentPolicy(["B"], [])
    assert policy.is_enabled(on_default) and policy.is_enabled(off_default)
    policy.disable("A")
    policy.disable("B")
    assert not policy.is_enabled(on_default) and not policy.is_enabled(off_default)
    assert (policy.enabled_names, policy.disabled_names) == ([], ["A", "B"])
    policy.enable("B")
    assert (policy.enabled_names, policy.disabled_names) == (["B"], ["A"])


def test_bundled_summarizer_renders_as_in_birdie():
    """The bundled Summarizer's rendered prompt ends with Birdie's output instructions; an
    unfilled placeholder stays; `text` is required."""
    summarizer, = load_agents([(bundled_agents_dir(), "bundled")]).agents
    prompt = render_prompt(summarizer, {"text": "abc"})
    assert "{{ max_points }}" in prompt and prompt.endswith(
        'Return your final answer as a single JSON object with exactly these fields:\n'
        '- "summary" (string): Bullet-point summary of the text\n'
        'Output only the JSON object, no other text.')
    assert input_schema(summarizer)["required"] == ["text"]


@pytest.mark.parametrize(("reply", "result"), [
    ('{"summary": "s"}', ('{"summary": "s"}', None)),
    ('Here: {"summary": "é"} done', ('{"summary": "é"}', None)),
    ("nothing", (None, "the reply contains no JSON object")),
    ("{bad}", (None, "the reply is not valid JSON")),
    ("[1]", (None, "the top-level JSON value must be an object")),
    ('{"summary": 3}', (None, "field 'summary' must be of type string, got int")),
    ("{}", (None, "missing required field 'summary'")),
])
def test_output_checks(reply, result):
    """A reply is checked as Birdie checks it: JSON found in prose, each failure worded as there."""
    summarizer, = load_agents([(bundled_agents_dir(), "bundled")]).agents
    assert parse_output(summarizer, reply) == result


def test_to_dict_is_plain_json(tmp_path):
    """A frontmatter key YAML reads as a date is kept, and `--json` prints it as text."""
    import json

    (tmp_path / "dated.md").write_text("---\ndescription: d\ncreated: 2024-05-01\n---\nx\n")
    agent, = load_agents([(tmp_path, "dir")]).agents
    assert json.loads(json.dumps(agent.to_dict()))["extra"] == {"created": "2024-05-01"}
