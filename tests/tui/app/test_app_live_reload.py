"""Live reload in the running app: the real watcher, real files, no key presses."""

from __future__ import annotations

import textwrap

import pytest

from tests.tui.app.conftest import wait_for, wait_ready

NOTES = textwrap.dedent("""\
    ---
    name: Notes
    description: Take notes.
    ---

    ## Tools

    ### note_add
    description: Add a note.
    entrypoint: bash:true
    schema: {type: object, properties: {}}
    """)


def sidebar_text(app) -> str:
    options = app.query_one("#skills OptionList")
    return "\n".join(str(options.get_option_at_index(i).prompt)
                     for i in range(options.option_count))


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.parametrize("polling", [False, True], ids=["inotify", "polling"])
async def test_a_written_skill_appears_breaks_and_heals_without_a_key(make_app, skills_dir,
                                                                     monkeypatch, polling):
    """A new skill file appears; a broken edit keeps the last good version; a fix heals it."""
    if polling:
        monkeypatch.setenv("BIRDIE_WATCH_POLLING", "1")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.pause(0.5)  # the watcher is in place
        notes = skills_dir / "notes" / "SKILL.MD"
        notes.parent.mkdir()
        notes.write_text(NOTES)
        await wait_for(pilot, lambda: "Notes" in sidebar_text(app), timeout=10)
        row = next(r for r in app.query_one("#skills").rows if r.name == "Notes")
        assert row.enabled and row.tool_count == 1 and row.error is None
        await wait_for(pilot, lambda: any("added Notes (1 tool)" in t for t in toasts(app)))

        notes.write_text("---\nname: Notes\ndescription: [oops\n")
        await wait_for(pilot, lambda: any(r.name == "Notes" and r.error
                                          for r in app.query_one("#skills").rows), timeout=10)
        row = next(r for r in app.query_one("#skills").rows if r.name == "Notes")
        assert "last good version" in row.error and "notes/SKILL.MD:" in row.error
        assert row.tool_count == 1  # still served

        notes.write_text(NOTES.replace("Take notes.", "Take better notes."))
        await wait_for(pilot, lambda: all(r.error is None for r in app.query_one("#skills").rows
                                          if r.name == "Notes"), timeout=10)
        await wait_for(pilot, lambda: any("fixed Notes" in t for t in toasts(app)))
        assert app.birdie.engine.registry.get("Notes").description == "Take better notes."


async def test_a_toggled_off_skill_stays_off_after_its_file_changes(make_app, skills_dir):
    """A skill toggled off stays off when its file is edited and reloaded."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.pause(0.5)
        app.main.toggle_skill("Echoer", False)
        echoer = skills_dir / "echoer" / "SKILL.MD"
        echoer.write_text(echoer.read_text().replace("Echo text back.", "Echo, edited."))
        await wait_for(pilot, lambda: any("reloaded Echoer" in t for t in toasts(app)),
                       timeout=10)
        row = next(r for r in app.query_one("#skills").rows if r.name == "Echoer")
        assert row.description == "Echo, edited." and not row.enabled


async def test_skill_reload_command_rescans(make_app, skills_dir, monkeypatch):
    """With the watcher off, `/skill reload` finds a new skill, then reports no changes."""
    monkeypatch.setenv("BIRDIE_WATCH", "0")  # only the command can notice
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        (skills_dir / "notes").mkdir()
        (skills_dir / "notes" / "SKILL.MD").write_text(NOTES)
        await pilot.pause(0.5)
        assert "Notes" not in sidebar_text(app)
        app.main.run_line("/skill reload")
        await wait_for(pilot, lambda: "Notes" in sidebar_text(app))
        app.main.run_line("/skill reload")
        await wait_for(pilot, lambda: any("no changes" in t for t in toasts(app)))
