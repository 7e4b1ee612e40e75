"""Triggers in agent files (`every:`, `cron:` + `tz:`, `watch:` + `debounce:`, `input:`,
`approval:`) and in settings' `schedules`: what each key accepts, and every refusal one problem
naming the file and the key's line; `load_triggers` over the agent folders and settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from birdie_tui.agent_files.agent_md import parse_agent_md
from birdie_tui.agent_files.markdown_agent import parse_markdown_agent
from birdie_tui.agent_files.models import AgentFileError
from birdie_tui.agent_files.triggers import parse_interval
from birdie_tui.schedules.loading import load_triggers, settings_schedules
from birdie_tui.store.paths import BirdiePaths

PATH = Path("/agents/digest/AGENT.MD")


def agent_md(front: str, inputs: str = "") -> str:
    return (f"---\nname: digest\ndescription: Digests.\n{front}\n---\n{inputs}"
            "## Prompt\nDigest {{ text }}.\n")


TEXT_INPUT = "## Input\n### text\ntype: string\n### n\ntype: integer\nrequired: false\n"


def refusal(front: str, inputs: str = "") -> tuple[int | None, str]:
    with pytest.raises(AgentFileError) as caught:
        parse_agent_md(agent_md(front, inputs), PATH)
    assert caught.value.problem.path == PATH
    return caught.value.problem.line, caught.value.problem.message


@pytest.mark.parametrize(("text", "seconds"), [
    ("1s", 1), ("30m", 1800), ("2h", 7200), ("1d", 86400), ("1h30m", 5400), (90, 90),
    ("45", 45), (2.5, 2.5), ("1d2h3m4s", 93784), (" 10S ", 10)])
def test_intervals_are_read_in_seconds(text: object, seconds: float) -> None:
    """An interval is units (d h m s, in that order) or a bare number of seconds."""
    assert parse_interval(text) == seconds


@pytest.mark.parametrize("text", ["0.5s", "0", "soon", "30 minutes", "m", "", True, None,
                                  [1], "1m1h", "-5", "inf"])
def test_what_is_no_interval_is_refused(text: object) -> None:
    """Under 1 s, negative, misordered units, words, other types: a ValueError saying why."""
    with pytest.raises(ValueError):
        parse_interval(text)


def test_every_kind_is_one_trigger_with_the_runs_values() -> None:
    """`every:` and `cron:` and `watch:` at once are three triggers, keyed `<agent>:<kind>`,
    each at its key's line, all with the file's `input:` and `approval:`; the keys leave
    `extra`, and `to_dict` lists the triggers."""
    front = ("every: 1h30m\ncron: \"0 9 * * 1-5\"\ntz: Europe/Paris\nwatch: [drafts/*.md, notes]"
             "\ndebounce: 2s\ninput:\n  text: the inbox\napproval:\n  mode: ask\n"
             "  allow: [\"bash(ls *)\", read_file]\ncolor: blue")
    agent = parse_agent_md(agent_md(front, TEXT_INPUT), PATH)
    every, cron, watch = agent.triggers
    assert (every.key, every.kind, every.every_s, every.line) == ("digest:every", "every",
                                                                  5400, 4)
    assert (cron.key, cron.cron, cron.tz, cron.line) == ("digest:cron", "0 9 * * 1-5",
                                                         "Europe/Paris", 5)
    assert (watch.watch, watch.debounce_s, watch.line) == (("drafts/*.md", "notes"), 2.0, 7)
    for trigger in agent.triggers:
        assert trigger.agent == "digest" and trigger.path == PATH
        assert dict(trigger.inputs) == {"text": "the inbox"}
        assert (trigger.approval, trigger.allow) == ("ask", ("bash(ls *)", "read_file"))
    assert dict(agent.extra) == {"color": "blue"}
    assert [t["key"] for t in agent.to_dict()["triggers"]] == ["digest:every", "digest:cron",
                                                               "digest:watch"]
    assert every.describe() == "every 1h30m"
    assert cron.describe() == "cron 0 9 * * 1-5 (Europe/Paris)"


def test_defaults_read_only_and_one_second_debounce() -> None:
    """No `approval:` is read-only with no rules; a watch's debounce is 1 s; a single path is
    a one-item list; an agent without trigger keys has none."""
    agent = parse_agent_md(agent_md("watch: inbox/", TEXT_INPUT.replace(
        "### text\ntype: string\n", "")), PATH)
    (trigger,) = agent.triggers
    assert (trigger.approval, trigger.allow, trigger.debounce_s) == ("read-only", (), 1.0)
    assert trigger.watch == ("inbox/",)
    assert parse_agent_md(agent_md(""), PATH).triggers == ()


@pytest.mark.parametrize(("front", "line", "words"), [
    ('cron: "61 * * * *"', 4, "is higher than the maximum value (59)"),
    ('cron: "0 9 * *"', 4, "Wrong number of fields; got 4, expected 5"),
    ("cron: 5", 4, "quote it"),
    ('tz: Mars/Olympus\ncron: "0 9 * * *"', 4, "unknown time zone 'Mars/Olympus'"),
    ('cron: "0 9 * * *"\ntz: ../../etc/passwd', 5, "unknown time zone"),
    ("tz: UTC\nevery: 5m", 4, "'tz' is the time zone of a 'cron' trigger"),
    ("every: 0.5s", 4, "shorter than the shortest allowed, 1s"),
    ("every: soon", 4, "'soon' is not an interval"),
    ("every: yes", 4, "got true/false"),
    ("every: 5m\ndebounce: 2s", 5, "'debounce' applies to a 'watch' trigger"),
    ("watch: a\ndebounce: 0.01s", 5, "shorter than the shortest allowed, 0.1s"),
    ("watch: []", 4, "non-empty list"),
    ("watch: {a: 1}", 4, "got a mapping"),
    ("approval: auto", 4, "'approval' belongs to a trigger"),
    ("every: 5m\napproval: yolo", 5, "must be one of read-only, ask, auto"),
    ("every: 5m\napproval: {mode: auto, deny: [x]}", 5, "unknown key(s) deny"),
    ("every: 5m\napproval: {mode: auto, allow: bash}", 5, "'allow' must be a list"),
    ("every: 5m\napproval: {allow: [\"bash(ls\"]}", 5, "'allow' must be a list"),
])
def test_a_bad_trigger_is_one_problem_at_its_line(front: str, line: int, words: str) -> None:
    """Every refusal names the file and the line of the key at fault, with the reason
    (APScheduler's own for a cron expression, on one line)."""
    got_line, message = refusal(front)
    assert got_line == line
    assert words in message and "\n" not in message


@pytest.mark.parametrize(("front", "words"), [
    ("every: 5m", "required input(s) text under 'input:'"),
    ("every: 5m\ninput: {n: 2}", "required input(s) text"),
    ("every: 5m\ninput: {text: a, colour: red}", "no input 'colour' (its inputs: text, n)"),
    ("every: 5m\ninput: {text: a, n: two}", "'n' must be integer, got text"),
    ("every: 5m\ninput: {text: a, n: true}", "'n' must be integer, got true/false"),
    ("every: 5m\ninput: [text]", "must be a mapping of input names"),
])
def test_inputs_are_checked_against_the_declared_ones(front: str, words: str) -> None:
    """`input:` names only declared inputs, gives every required one, each of its type."""
    _line, message = refusal(front, TEXT_INPUT)
    assert words in message


def test_markdown_agents_take_triggers_with_their_task() -> None:
    """A Markdown agent's trigger gives its one input, `task`; without it the file is refused
    at the trigger's line."""
    path = Path("/agents/review.md")
    agent = parse_markdown_agent("---\ndescription: Reviews.\nwatch: drafts/*.md\n"
                                 "input: {task: Review the new drafts}\n---\nBe kind.", path)
    (trigger,) = agent.triggers
    assert (trigger.key, trigger.line, dict(trigger.inputs)) == (
        "review:watch", 3, {"task": "Review the new drafts"})
    assert "watch" not in agent.extra and "input" not in agent.extra
    with pytest.raises(AgentFileError) as caught:
        parse_markdown_agent("---\ndescription: R.\nevery: 1h\n---\n", path)
    assert caught.value.problem.line == 3 and "task" in caught.value.problem.message


def write_settings(path: Path, schedules: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"theme": "x", "schedules": schedules}, indent=1))


def test_settings_schedules_are_plain_prompts(tmp_path: Path) -> None:
    """Each entry is one trigger keyed `schedule:<name>` with its prompt and no agent."""
    path = tmp_path / "settings.json"
    write_settings(path, [{"name": "inbox", "prompt": "Summarise my inbox",
                           "cron": "0 9 * * *", "tz": "UTC"},
                          {"name": "drafts", "prompt": "Review", "watch": ["drafts/*.md"],
                           "debounce": "3s", "approval": {"mode": "auto", "allow": ["ls"]}}])
    triggers, problems = settings_schedules(path)
    assert problems == []
    inbox, drafts = triggers
    assert (inbox.key, inbox.agent, inbox.prompt, inbox.cron, inbox.tz) == (
        "schedule:inbox", None, "Summarise my inbox", "0 9 * * *", "UTC")
    assert (drafts.kind, drafts.debounce_s, drafts.approval, drafts.allow) == (
        "watch", 3.0, "auto", ("ls",))
    assert inbox.path == path and inbox.line is not None


def test_bad_settings_schedules_name_the_file_and_entry(tmp_path: Path) -> None:
    """A bad entry is a problem naming the settings file, the entry's number and name and
    its line; the good entries still load."""
    path = tmp_path / "settings.json"
    write_settings(path, [{"name": "ok", "prompt": "p", "every": 60},
                          {"name": "bad", "prompt": "p", "every": "soon"},
                          {"name": "two", "prompt": "p", "every": 5, "watch": "a"},
                          {"name": "in", "prompt": "p", "every": 5, "input": {"x": 1}},
                          {"name": "nop", "every": 5}, 7, {"name": "has space", "prompt": "p",
                                                           "every": 5}])
    triggers, problems = settings_schedules(path)
    assert [t.key for t in triggers] == ["schedule:ok"]
    text = [str(p) for p in problems]
    assert all(p.path == path for p in problems) and len(problems) == 6
    assert "schedules #2 ('bad'): field 'every'" in text[0] and problems[0].line is not None
    assert "exactly one of 'every', 'cron' or 'watch'" in text[1]
    assert "unknown key(s) input" in text[2]
    assert "'prompt' must be" in text[3]
    assert "schedules #6: a schedule is a mapping" in text[4]
    assert "'name' must be" in text[5]


def test_settings_without_schedules_or_unreadable(tmp_path: Path) -> None:
    """No file or no key is no schedule; a corrupt file or a non-list is one problem."""
    path = tmp_path / "settings.json"
    assert settings_schedules(path) == ([], [])
    path.write_text('{"theme": "x"}')
    assert settings_schedules(path) == ([], [])
    path.write_text('{"schedules": {"name": "x"}}')
    assert "must be a list" in str(settings_schedules(path)[1][0])
    path.write_text('{"schedules": [')
    assert "not valid JSON" in str(settings_schedules(path)[1][0])


def test_load_triggers_reads_agents_and_settings(tmp_path: Path) -> None:
    """The agent folders (as `agents check` reads them) and settings together: triggers,
    problems with file and line, the agents by name, and a key declared twice refused."""
    home = tmp_path / "home"
    paths = BirdiePaths(home)
    folder = home / "agents"
    (folder / "digest").mkdir(parents=True)
    (folder / "digest" / "AGENT.MD").write_text(agent_md("every: 2s"))
    (folder / "broken.md").write_text("---\ndescription: B.\ncron: \"99 * * * *\"\n---\n")
    (folder / "plain.md").write_text("---\ndescription: No trigger.\n---\n")
    write_settings(paths.settings_file, [{"name": "inbox", "prompt": "p", "every": 5},
                                         {"name": "inbox", "prompt": "q", "every": 9}])
    load = load_triggers(paths, {}, tmp_path / "project")
    assert [t.key for t in load.triggers] == ["digest:every", "schedule:inbox"]
    assert {"digest", "plain", "Summarizer"} <= set(load.agents)
    second = [i for i, line in enumerate(paths.settings_file.read_text().splitlines(), 1)
              if '"inbox"' in line][1]
    where = sorted((p.path.name, p.line) for p in load.problems)
    assert where == [("broken.md", 3), ("settings.json", second)]
    assert any("declared twice" in p.message for p in load.problems)
    only = load_triggers(paths, {}, tmp_path, agent_dirs=[(tmp_path / "none", "dir")])
    assert [t.key for t in only.triggers] == ["schedule:inbox"] and only.agents == {}
