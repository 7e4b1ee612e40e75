"""Live reload in the running app: the real watcher, real files, no key presses. Local door
only: SKILL.MD files on disk."""

from __future__ import annotations

import textwrap

import pytest

from tests.tui.app.conftest import skill, wait_for, wait_ready

pytestmark = pytest.mark.app

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
        assert skill(app, "Notes").description == "Take better notes."


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


def sidebar_title(app) -> str:
    return str(app.query_one("#skills .skills--title").render())


async def test_new_broken_files_show_in_the_title_and_toasts(make_app, skills_dir):
    """Broken skill files that never loaded are counted in the sidebar title (⚠ 2) and named
    in the live-reload toast; `/skill reload` still names them when nothing changed."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.pause(0.5)
        assert "⚠" not in sidebar_title(app)
        for name in ("bad", "worse"):
            (skills_dir / name).mkdir()
        (skills_dir / "bad" / "SKILL.MD").write_text("---\nname: Bad\ndescription: [oops\n")
        (skills_dir / "worse" / "SKILL.MD").write_text("no front matter at all\n")
        await wait_for(pilot, lambda: "⚠ 2" in sidebar_title(app), timeout=10)
        await wait_for(pilot, lambda: any("bad/SKILL.MD" in t for t in toasts(app)), timeout=10)
        app.main.run_line("/skill reload")
        await wait_for(pilot, lambda: any("no changes" in t for t in toasts(app)))
        rescanned = next(t for t in toasts(app) if "no changes" in t)
        assert "2 broken skill files" in rescanned
        assert "bad/SKILL.MD" in rescanned and "worse/SKILL.MD" in rescanned


async def test_a_home_skills_folder_made_after_start_is_picked_up_live(isolated_home):
    """With the default folders, a `$BIRDIE_HOME/skills` made while the app runs is watched
    and its skill appears in the sidebar without a key press."""
    from birdie_tui.tui import create_app

    app = create_app([], cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.pause(0.5)
        notes = isolated_home / "skills" / "notes" / "SKILL.MD"
        notes.parent.mkdir(parents=True)
        notes.write_text(NOTES)
        await wait_for(pilot, lambda: "Notes" in sidebar_text(app), timeout=10)
