"""Live reload through the engine, on real files: what changes, what is kept, what survives."""

from __future__ import annotations

import asyncio
import json
import shutil
import textwrap

from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.providers.offline import OfflineChatModel
from tests.agent.conftest import collect


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


NOTES = """
    ---
    name: Notes
    description: Take notes.
    triggers: [jot]
    ---

    ## Tools

    ### note_add
    description: Add a note.
    entrypoint: bash:printf 'noted %s' {text}
    schema:
      type: object
      properties:
        text: {type: string}
      required: [text]
    """


async def test_add_change_break_fix_rename_delete(engine, skills_dir):
    """Reload tracks a skill through add, change, break (last good kept), fix, move, delete."""
    notes = skills_dir / "notes" / "SKILL.MD"
    write(notes, NOTES)
    report = await engine.reload_skills_async([notes])
    assert [s.name for s in report.added] == ["Notes"] and engine.is_enabled(engine.registry.get("Notes"))
    assert "added Notes (1 tool)" in report.summary()

    write(notes, NOTES.replace("### note_add", "### note_list\n    description: List.\n"
                               "    entrypoint: bash:true\n    schema: {type: object, properties: {}}\n\n    ### note_add"))
    report = await engine.reload_skills_async([notes])
    assert [s.name for s in report.changed] == ["Notes"]
    assert "reloaded Notes (2 tools)" in report.summary()
    assert engine.registry.tool("note_list") is not None

    notes.write_text("---\nname: Notes\ndescription: [unclosed\n")  # a save gone wrong
    report = await engine.reload_skills_async([notes])
    assert list(report.broken) == ["Notes"]
    error = engine.broken_skills["Notes"]
    assert error.path == str(notes) and error.line is not None and error.message
    kept = engine.registry.get("Notes")
    assert kept is not None and [t.name for t in kept.tools] == ["note_list", "note_add"]
    assert "keeping its last good version" in report.summary()

    notes.write_text("")  # an editor that truncates before writing
    report = await engine.reload_skills_async([notes])
    assert engine.registry.get("Notes") is kept and "Notes" in engine.broken_skills

    write(notes, NOTES)
    report = await engine.reload_skills_async([notes])
    assert report.fixed == ["Notes"] and engine.broken_skills == {}
    assert report.summary() == "fixed Notes (1 tool)"
    assert [t.name for t in engine.registry.get("Notes").tools] == ["note_add"]

    (skills_dir / "notes").rename(skills_dir / "jotter")  # a renamed folder
    report = await engine.reload_skills_async([skills_dir / "notes", skills_dir / "jotter"])
    assert engine.registry.get("Notes").path == skills_dir / "jotter" / "SKILL.MD"
    assert not report.removed

    shutil.rmtree(skills_dir / "jotter")
    report = await engine.reload_skills_async([skills_dir / "jotter"])
    assert [s.name for s in report.removed] == ["Notes"]
    assert engine.registry.get("Notes") is None and engine.registry.tool("note_add") is None


async def test_a_broken_new_file_is_an_error_not_a_skill(engine, skills_dir):
    """A new skill file that fails to parse is reported as an error and registers no skill."""
    bad = skills_dir / "bad" / "SKILL.MD"
    write(bad, "---\nname: Bad\n")
    report = await engine.reload_skills_async([bad])
    assert report.broken == {} and engine.registry.get("Bad") is None
    assert [e.path for e in report.new_errors] == [str(bad)]
    assert "bad/SKILL.MD" in report.summary()


async def test_grants_survive_reloads(engine, skills_dir, isolated_home):
    """Session grants still apply to reloaded skills, so a disabled tool stays unbound."""
    engine.persist_session()  # a saved session writes each grant as it changes
    engine.set_skill_enabled("Echoer", False)
    engine.set_skill_enabled("Quiet", True)  # off by default, on for this session
    echoer = skills_dir / "echoer" / "SKILL.MD"
    echoer.write_text(echoer.read_text().replace("Echo text back.", "Echo text back, loudly."))
    quiet = skills_dir / "quiet" / "SKILL.MD"
    quiet.write_text(quiet.read_text().replace("Say nothing.", "Say even less."))
    report = await engine.reload_skills_async([echoer, quiet])
    assert {s.name for s in report.changed} == {"Echoer", "Quiet"}
    assert not engine.is_enabled(engine.registry.get("Echoer"))
    assert engine.is_enabled(engine.registry.get("Quiet"))
    session = json.loads((isolated_home / "sessions" / engine.user /
                          f"{engine.session.id}.json").read_text())
    assert session["disabled_skills"] == ["Echoer"] and session["enabled_skills"] == ["Quiet"]
    events = await collect(engine, 'call echo_text {"text": "hi"}')
    assert not [e for e in events if e.type == "tool_result"]  # never bound, never run
    assert "not available" in events[-1].text


async def test_tools_py_change_is_used_by_the_next_call(engine, skills_dir):
    """After a tools.py edit is reloaded, the next call runs the new Python code."""
    folder = skills_dir / "counter"
    write(folder / "SKILL.MD", """
        ---
        name: Counter
        description: Python tool.
        ---

        ## Tools

        ### version
        description: Which version of tools.py answers.
        entrypoint: python:tools.version
        schema: {type: object, properties: {}}
        """)
    (folder / "tools.py").write_text("def version():\n    return 'v1'\n")
    await engine.reload_skills_async([folder / "SKILL.MD"])
    events = await collect(engine, "call version {}")
    assert [e.content for e in events if e.type == "tool_result"] == ["v1"]

    (folder / "tools.py").write_text("def version():\n    return 'v2!'\n")
    report = await engine.reload_skills_async([folder / "tools.py"])
    assert [s.name for s in report.changed] == ["Counter"]
    events = await collect(engine, "call version {}")
    assert [e.content for e in events if e.type == "tool_result"] == ["v2!"]


async def test_reload_during_a_turn_applies_from_the_next_model_call(engine, skills_dir,
                                                                     tmp_path, monkeypatch):
    """The turn pauses at an approval (a tool call is in flight); the skill file changes and
    is reloaded; the model call that was made keeps its tools, the next one sees the new."""
    bound: list[list[str]] = []
    original = OfflineChatModel.bind_tools

    def recording_bind(self, tools, **kw):
        bound.append(sorted(getattr(t, "name", "") for t in tools))
        return original(self, tools, **kw)

    monkeypatch.setattr(OfflineChatModel, "bind_tools", recording_bind)
    asked = asyncio.Event()
    go = asyncio.Event()

    async def approver(request):
        asked.set()
        await go.wait()
        return ApprovalAnswer("allow")

    target = tmp_path / "touched"
    turn = asyncio.create_task(collect(
        engine, f'call touch_file {{"path": "{target}"}}', approver=approver))
    await asyncio.wait_for(asked.wait(), 10)
    assert len(bound) == 1 and "shout" not in bound[0]

    write(skills_dir / "loud" / "SKILL.MD", """
        ---
        name: Loud
        description: Shouting.
        ---

        ## Tools

        ### shout
        description: Shout.
        entrypoint: bash:echo HEY
        schema: {type: object, properties: {}}
        """)
    await engine.reload_skills_async([skills_dir / "loud" / "SKILL.MD"])
    assert len(bound) == 1  # nothing re-bound while the call is in flight
    go.set()
    events = await asyncio.wait_for(turn, 20)
    assert target.exists()
    assert events[-1].type == "done"
    assert len(bound) == 2 and "shout" in bound[1] and "touch_file" in bound[1]


async def test_skill_reload_sync_path_reports_the_same(engine, skills_dir):
    """The synchronous reload reports an added skill, then nothing on a second run."""
    write(skills_dir / "notes" / "SKILL.MD", NOTES)
    report = engine.reload_skills()
    assert [s.name for s in report.added] == ["Notes"]
    assert engine.reload_skills().empty


async def test_a_home_skills_folder_made_after_start_is_loaded_on_reload(isolated_home):
    """With the default folders, `$BIRDIE_HOME/skills` created after start joins on reload
    (both paths), and live reload is told to wait for it while it is missing."""
    from birdie_tui.agent.engine import Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig

    eng = Engine(EngineOptions(provider=ProviderConfig(vendor="offline")))
    await eng.start()
    try:
        user_dir = isolated_home / "skills"
        assert user_dir not in eng.skill_dirs and user_dir in eng.watched_skill_dirs()
        write(user_dir / "notes" / "SKILL.MD", NOTES)
        report = await eng.reload_skills_async([user_dir])
        assert [s.name for s in report.added] == ["Notes"]
        assert user_dir in eng.skill_dirs and eng.watched_skill_dirs() == eng.skill_dirs
        shutil.rmtree(user_dir)
        assert [s.name for s in eng.reload_skills().removed] == ["Notes"]
        write(user_dir / "notes" / "SKILL.MD", NOTES)
        assert [s.name for s in eng.reload_skills().added] == ["Notes"]
    finally:
        await eng.aclose()


async def test_chosen_skill_folders_are_not_replaced_by_the_defaults(engine, skills_dir,
                                                                     isolated_home):
    """`--skills-dir` is the whole list: a home skills folder does not join it on reload."""
    write(isolated_home / "skills" / "notes" / "SKILL.MD", NOTES)
    assert engine.reload_skills().empty
    assert engine.skill_dirs == [skills_dir] == engine.watched_skill_dirs()
