"""The door methods behind `/cost`, `/history`, `/skill new`, `/tool cap` and `/cd` on the real
`LocalBirdie` with the offline model: the cost of each turn, your last messages, a new skill
from the template, the per-turn tool-call limit and the working directory of the tools."""

from __future__ import annotations

import json
import os

import pytest

from birdie_tui.events import SkillsReloaded
from birdie_tui.service import BirdieError
from birdie_tui.skills.parser import parse_skill_file
from birdie_tui.skills.scaffold import skill_template
from tests.agent.conftest import LoopingModel, write_skills

WHERE = """\
---
name: Where
description: Where tools run.
---

## Tools

### where_am_i
description: Print the working directory.
entrypoint: bash:pwd
schema: {type: object, properties: {}}
"""


@pytest.fixture
def skills_dir(tmp_path):
    """The test skills plus one whose tool prints its working directory."""
    root = write_skills(tmp_path / "skills")
    (root / "where").mkdir()
    (root / "where" / "SKILL.MD").write_text(WHERE)
    return root


async def turn(birdie, text):
    return [event async for event in birdie.send(text)]


# ---------------------------------------------------------------------- /cost
async def test_cost_has_a_row_per_turn_after_two_turns(birdie, monkeypatch):
    """Two turns: two rows (turn, model, tokens, cost at the price of the call), summing to
    the session totals of the ledger; the records survive a reopen of the session."""
    monkeypatch.setattr(type(birdie.engine), "price", property(lambda self: (2.0, 10.0, 0.5)))
    await turn(birdie, "first question")
    await turn(birdie, "call echo_text {\"text\": \"hi\"}")
    report = birdie.cost()
    assert [r.turn for r in report.per_turn] == [1, 2] and report.turns == 2
    assert {r.model for r in report.per_turn} == {"offline model"}
    assert report.unrecorded_turns == 0 and not report.cost_estimated
    for row in report.per_turn:
        assert row.input > 0 and row.output > 0 and not row.retried
        assert row.cost == pytest.approx((row.input * 2.0 + row.output * 10.0) / 1e6)
    assert sum(r.input for r in report.per_turn) == report.input == birdie.ledger().session_in
    assert sum(r.output for r in report.per_turn) == report.output
    assert report.cost_usd == pytest.approx(sum(r.cost for r in report.per_turn))
    assert report.per_turn[1].input > report.per_turn[0].input  # two model calls, a tool
    sid = birdie.status().session_id
    await birdie.new_session()
    await birdie.open_session(sid)
    assert birdie.cost().per_turn == report.per_turn


async def test_cost_of_a_session_from_before_turn_records_gives_totals_only(birdie,
                                                                          isolated_home):
    """A session file with totals but no per-turn records: no invented rows, the turns it
    covers are counted as unrecorded; the next turn gets its own row, numbered after them."""
    sid = "2025-01-01_1"
    folder = isolated_home / "sessions" / "tester"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.json").write_text(json.dumps({
        "id": sid, "user_id": "tester", "created_at": "2025-01-01T10:00:00+00:00",
        "updated_at": "2025-01-01T10:00:00+00:00", "turns": 3, "enabled_skills": [],
        "disabled_skills": [], "input_tokens": 900, "output_tokens": 90}))
    await birdie.open_session(sid)
    report = birdie.cost()
    assert report.per_turn == () and report.unrecorded_turns == 3
    assert (report.turns, report.input, report.output) == (3, 900, 90)
    await turn(birdie, "one more")
    report = birdie.cost()
    assert [r.turn for r in report.per_turn] == [4] and report.unrecorded_turns == 3


async def test_a_retried_turn_keeps_its_row_marked(birdie):
    """/retry takes a turn back: its row stays, marked retried, and the new run adds a row
    under the same turn number; the rows still sum to the totals."""
    await turn(birdie, "try this")
    text = await birdie.take_last_turn()
    assert [(r.turn, r.retried) for r in birdie.cost().per_turn] == [(1, True)]
    await turn(birdie, text)
    report = birdie.cost()
    assert [(r.turn, r.retried) for r in report.per_turn] == [(1, True), (1, False)]
    assert sum(r.input for r in report.per_turn) == report.input
    assert report.unrecorded_turns == 0


# ---------------------------------------------------------------------- /history
async def test_history_gives_your_last_messages_with_turn_numbers(birdie):
    """Three turns (one with a tool call): the last two user messages, numbered 2 and 3;
    no limit below 1; a new session has none."""
    for text in ("alpha", "call echo_text {\"text\": \"x\"}", "gamma\nsecond line"):
        await turn(birdie, text)
    last = await birdie.history(2)
    assert [(t.turn, t.text) for t in last] == [
        (2, "call echo_text {\"text\": \"x\"}"), (3, "gamma\nsecond line")]
    assert [t.turn for t in await birdie.history()] == [1, 2, 3]
    with pytest.raises(BirdieError):
        await birdie.history(0)
    await birdie.new_session()
    assert await birdie.history() == []


# ---------------------------------------------------------------------- /skill new
async def test_new_skill_is_written_parsed_and_loaded_in_a_folder_made_for_it(birdie,
                                                                          isolated_home):
    """$BIRDIE_HOME/skills did not exist (and --skills-dir-style folders were given): it is
    created, joins the session's folders, the skill loads at once (a `reloaded` event says
    so) and the template parses as a knowledge skill with its name as a trigger."""
    folder = isolated_home / "skills"
    assert not folder.exists() and str(folder) not in birdie.status().skill_dirs
    birdie.heard.clear()
    made = await birdie.new_skill("demo")
    path = folder / "demo" / "SKILL.MD"
    assert made.path == str(path) and made.folder_added and path.is_file()
    assert str(folder) in birdie.status().skill_dirs
    row = next(r for r in birdie.skill_rows() if r.name == "demo")
    assert row.kind == "knowledge" and row.triggers == ("demo",) and row.error is None
    assert any(isinstance(e, SkillsReloaded) and "demo" in e.summary for e in birdie.heard)
    skill = parse_skill_file(path)
    assert skill.name == "demo" and skill.tools == []
    again = await birdie.new_skill("second")
    assert not again.folder_added  # the folder is one of the session's now
    assert {"demo", "second"} <= {r.name for r in birdie.skill_rows()}


async def test_new_skill_refuses_bad_names_loaded_skills_and_existing_files(birdie,
                                                                         isolated_home):
    """Bad names, a loaded skill's name (any case) and a folder that holds a skill file are
    refused, and nothing is written or overwritten."""
    for bad in ("../escape", "has space", "", "-dash", "a/b", "x" * 65):
        with pytest.raises(BirdieError, match="invalid skill name"):
            await birdie.new_skill(bad)
    with pytest.raises(BirdieError, match="already loaded"):
        await birdie.new_skill("echoer")
    taken = isolated_home / "skills" / "taken" / "SKILL.MD"
    taken.parent.mkdir(parents=True)
    taken.write_text("mine")
    with pytest.raises(BirdieError, match="nothing was overwritten"):
        await birdie.new_skill("taken")
    assert taken.read_text() == "mine"
    assert sorted(p.name for p in (isolated_home / "skills").iterdir()) == ["taken"]


def test_the_templates_tools_example_parses_once_uncommented(tmp_path):
    """The commented `## Tools` example is a valid tool block: taken out of its comment and
    fence, the skill has one runnable tool; names YAML would read as numbers or booleans
    stay strings."""
    text = skill_template("1.0")
    uncommented = "\n".join(line for line in text.splitlines()
                            if line not in ("<!--", "-->", "```")
                            and not line.startswith("To give this skill tools"))
    path = tmp_path / "one" / "SKILL.MD"
    path.parent.mkdir()
    path.write_text(uncommented)
    skill = parse_skill_file(path)
    assert skill.name == "1.0" and skill.triggers == ["1.0"]
    assert [t.name for t in skill.tools] == ["t_1_0_hello"]
    assert skill.tools[0].entrypoint.startswith("bash:echo hello")


# ---------------------------------------------------------------------- /tool cap
# LoopingModel (tests/agent/conftest.py) calls echo_text whenever tools are bound.


async def test_tool_cap_stops_a_turn_at_the_limit(birdie):
    """With the cap at 3, a model that would call tools forever makes 3 calls and answers."""
    assert birdie.tool_call_limit() == 40
    assert birdie.set_tool_call_limit(3) == 3 and birdie.tool_call_limit() == 3
    birdie.engine.model = LoopingModel()
    events = await turn(birdie, "loop")
    assert [e.type for e in events].count("tool_call") == 3
    assert events[-1].type == "done" and events[-1].text == "answered after 3 calls"


async def test_tool_cap_off_lets_a_turn_pass_the_default_limit(birdie):
    """`off`: a turn makes more calls than the default 40 (here 42, then the model answers)."""
    assert birdie.set_tool_call_limit(None) is None and birdie.tool_call_limit() is None
    birdie.engine.model = LoopingModel(stop_after=42)
    events = await turn(birdie, "loop")
    assert [e.type for e in events].count("tool_call") == 42
    assert events[-1].type == "done" and events[-1].text == "answered after 42 calls"


async def test_tool_cap_refuses_what_is_not_a_limit(birdie):
    """0, negatives and non-integers are refused; the limit stays."""
    for bad in (0, -1, 2.5, True):
        with pytest.raises(BirdieError):
            birdie.set_tool_call_limit(bad)
    assert birdie.tool_call_limit() == 40


# ---------------------------------------------------------------------- /cd
async def test_cd_moves_where_bash_tools_run(birdie, tmp_path, monkeypatch):
    """change_dir goes to a relative path, then `~`; a bash tool runs there; a missing
    directory or a file is a one-line error that leaves the directory as it was."""
    monkeypatch.chdir(tmp_path)  # restored after the test
    (tmp_path / "work" / "inner").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert birdie.working_dir() == str(tmp_path)
    assert birdie.change_dir("work/inner") == str(tmp_path / "work" / "inner")
    assert birdie.change_dir("..") == str(tmp_path / "work") == os.getcwd()
    events = await turn(birdie, "call where_am_i")
    result = next(e for e in events if e.type == "tool_result")
    assert result.content.strip() == str(tmp_path / "work") and not result.error
    assert birdie.change_dir("~") == str(home)
    with pytest.raises(BirdieError, match="no such directory: .*nowhere"):
        birdie.change_dir("nowhere")
    (home / "file.txt").write_text("x")
    with pytest.raises(BirdieError, match="not a directory"):
        birdie.change_dir("file.txt")
    assert birdie.working_dir() == str(home)

