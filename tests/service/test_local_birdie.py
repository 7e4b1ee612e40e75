"""The front door over the local engine: what crosses it is plain rows, and every change a UI
must reflect is told as an event — no caller has to poll or reach into the engine."""

from __future__ import annotations

import dataclasses
import gc
import importlib
import json

import pytest

from birdie_tui.service import BirdieError, local_birdie
from birdie_tui.service import rows as row_types

ROW_TYPES = tuple(t for t in (getattr(row_types, name) for name in row_types.__all__)
                  if isinstance(t, type))


def plain(value) -> bool:
    """A value the door may hand out: primitives, containers of them, frozen rows."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, ROW_TYPES):
        frozen = type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]
        return frozen and all(plain(getattr(value, f.name))
                              for f in dataclasses.fields(value))
    return False


def kinds(door) -> list[str]:
    return [e.type for e in door.heard]


async def test_every_answer_is_plain_frozen_rows(birdie):
    """No LangChain message, session object, registry, path or options crosses the door."""
    await _turn(birdie, 'call echo_text {"text": "hi"}')
    birdie.remember("a note")
    answers = [birdie.status(), birdie.ledger(), birdie.settings(), birdie.skill_rows(),
               birdie.broken_files(), birdie.mcp_rows(), birdie.memory(), birdie.session_rows(),
               birdie.model_facts(), birdie.model_choices(), await birdie.transcript(),
               await birdie.injection(), await birdie.tools(), birdie.resume_command()]
    assert [a for a in answers if not plain(a)] == []
    assert {i.role for i in await birdie.transcript()} >= {"user", "assistant", "tool"}


async def _turn(door, text: str) -> list:
    return [event async for event in door.send(text)]


async def test_a_turn_tells_totals_per_call_then_what_changed(birdie):
    """Each completed model call moves the ledger; once recorded: totals, status, skills."""
    birdie.heard.clear()
    events = await _turn(birdie, 'call echo_text {"text": "hi"}')
    assert [e.type for e in events].count("usage") == 2
    assert kinds(birdie) == ["totals", "totals", "totals", "status", "skills"]
    ledger = birdie.ledger()
    assert ledger.turns == 1 and len(ledger.calls) == 2
    assert birdie.heard[-3].session_in == ledger.session_in > 0
    assert birdie.status().saved and birdie.status().turns == 1


async def test_commands_tell_their_change(birdie):
    """Grants, memory, titles, sessions: each change is an event of the vocabulary."""
    birdie.heard.clear()
    row = birdie.set_skill("Echoer", False)
    assert not row.enabled and kinds(birdie) == ["skills"]
    assert birdie.set_skill("Echoer").enabled  # None toggles
    note = birdie.remember("tea, not coffee")
    birdie.forget(note.id)
    assert kinds(birdie)[-2:] == ["memory", "memory"] and birdie.heard[-1].count == 0
    await _turn(birdie, "hello")
    first = birdie.status().session_id
    birdie.heard.clear()
    birdie.rename_session(first, "named")
    assert kinds(birdie) == ["status"] and birdie.status().title == "named"
    await birdie.new_session()
    assert kinds(birdie)[-1] == "session" and birdie.heard[-1].new
    await birdie.open_session(first)
    assert birdie.heard[-1].type == "session" and birdie.heard[-1].id == first
    await birdie.open_session(first)  # already open: nothing happens, nothing is said
    assert birdie.heard[-1].id == first and kinds(birdie).count("session") == 2


async def test_mistakes_are_one_line_birdie_errors(birdie):
    """A user's mistake is a BirdieError with a sentence, and changes nothing."""
    with pytest.raises(BirdieError, match="unknown skill 'Nope'"):
        birdie.set_skill("Nope", True)
    with pytest.raises(BirdieError, match="no memory entry"):
        birdie.forget("zzz")
    with pytest.raises(BirdieError, match="not found"):
        await birdie.open_session("2020-01-01_9")
    with pytest.raises(BirdieError, match="nothing to retry"):
        await birdie.take_last_turn()
    with pytest.raises(BirdieError, match="no MCP skill"):
        await birdie.restart_mcp("Echoer")


async def test_reload_tells_skills_and_what_changed(birdie, skills_dir):
    """A rescan says `skills` and `agents` (agent files are read again with the skills); a
    forced one also says what it found, even "no changes"."""
    birdie.heard.clear()
    await birdie.reload_skills(forced=True)
    assert kinds(birdie) == ["skills", "agents", "reloaded"]
    assert "no changes" in birdie.heard[-1].summary and not birdie.heard[-1].trouble
    (skills_dir / "echoer" / "SKILL.MD").write_text("---\nname: [broken\n---\n")
    birdie.heard.clear()
    await birdie.reload_skills([skills_dir / "echoer" / "SKILL.MD"])
    assert kinds(birdie) == ["skills", "agents", "reloaded"] and birdie.heard[-1].trouble
    row = next(r for r in birdie.skill_rows() if r.name == "Echoer")
    assert row.error and "last good version" in row.error  # the last good version is kept


async def test_a_corrupt_file_found_is_told_once(isolated_home, skills_dir):
    """Recovery notices reach listeners as `recovered` events, once per file, and the same
    message is not repeated among the start's settings warnings."""
    (isolated_home / "settings.json").write_text("{not json")
    door = local_birdie(skills_dirs=[skills_dir], environ={"BIRDIE_HOME": str(isolated_home),
                                                         "USER": "tester"})
    heard: list = []
    door.subscribe(heard.append)
    try:
        started = await door.start()
    finally:
        await door.close()
    recovered = [e for e in heard if e.type == "recovered"]
    assert len(recovered) == 1 and "settings" in recovered[0].message
    assert not any(w == recovered[0].message for w in started.warnings)


async def test_a_failed_start_closes_everything_and_says_why(isolated_home, skills_dir):
    """A start that cannot open the history database raises one line and leaves nothing."""
    (isolated_home / "sessions").mkdir(parents=True)
    (isolated_home / "sessions" / "tester").write_text("a file where a folder belongs")
    door = local_birdie(skills_dirs=[skills_dir], environ={"BIRDIE_HOME": str(isolated_home),
                                                         "USER": "tester"})
    with pytest.raises(BirdieError) as failed:
        await door.start()
    assert "\n" not in str(failed.value) and door.engine is None


def _engine_import_spy(monkeypatch, seen: list[int], fail: bool = False) -> None:
    """Records the young generation's collection threshold each time the engine module is
    imported."""
    real = importlib.import_module

    def spy(name: str, package: str | None = None):
        if name == "birdie_tui.agent.engine":
            seen.append(gc.get_threshold()[0])
            if fail:
                raise ImportError("no engine here")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", spy)


async def test_the_engine_is_imported_with_rare_young_collections(isolated_home, skills_dir,
                                                                  monkeypatch):
    """The engine's import (objects that live as long as the process) runs with young
    collections far rarer than usual, on the way to the first answer; the thresholds are as
    they were once the import is done, even when it fails."""
    before = gc.get_threshold()
    seen: list[int] = []
    _engine_import_spy(monkeypatch, seen)
    environ = {"BIRDIE_HOME": str(isolated_home), "USER": "tester"}
    door = local_birdie(skills_dirs=[skills_dir], environ=environ)
    await door.start()
    await door.close()
    assert seen[0] >= 10 * before[0] and gc.get_threshold() == before
    _engine_import_spy(monkeypatch, seen, fail=True)
    with pytest.raises(BirdieError, match="no engine here"):
        await local_birdie(skills_dirs=[skills_dir], environ=environ).start()
    assert len(seen) == 2 and seen[1] >= 10 * before[0] and gc.get_threshold() == before


async def test_a_door_not_started_says_so(isolated_home, skills_dir):
    """Before `start` (and after `close`) a command raises BirdieError saying the door has not
    started; what needs no engine (settings, the resume hint, the pulse) still answers."""
    door = local_birdie(skills_dirs=[skills_dir], environ={"BIRDIE_HOME": str(isolated_home),
                                                         "USER": "tester"})
    with pytest.raises(BirdieError, match="not started"):
        door.status()
    with pytest.raises(BirdieError, match="not started"):
        await door.new_session()
    assert door.engine is None and door.resume_command() is None
    assert not (await door.session_pulse()).changed


async def test_strict_start_refuses_instead_of_falling_back(isolated_home, skills_dir):
    """Headless starts are strict: an unknown session is an error, not a new session."""
    door = local_birdie(skills_dirs=[skills_dir], environ={"BIRDIE_HOME": str(isolated_home),
                                                         "USER": "tester"})
    with pytest.raises(BirdieError, match="not found"):
        await door.start(session_id="2020-01-01_1", strict=True)
    lenient = local_birdie(skills_dirs=[skills_dir], environ={"BIRDIE_HOME": str(isolated_home),
                                                            "USER": "tester"})
    try:
        started = await lenient.start(session_id="2020-01-01_1", enable=["Nope"])
    finally:
        await lenient.close()
    assert started.new and len(started.problems) == 2  # the skill ignored, then a new session
    assert not list((isolated_home / "sessions").rglob("*.json"))  # nothing written


async def test_settings_round_trip_keeps_unknown_keys(birdie, isolated_home):
    """Saving a setting through the door keeps keys this version does not know."""
    path = isolated_home / "settings.json"
    path.write_text(json.dumps({"future_key": 1, "theme": "birdie-dark"}))
    birdie.save_settings(theme="birdie-light", tool_output="short")
    data = json.loads(path.read_text())
    assert data["future_key"] == 1 and data["theme"] == "birdie-light"
    assert birdie.settings().tool_output == "short"
