"""The TUI with a read-only BIRDIE_HOME: it starts, the skill sidebar still lists the bundled
and $BIRDIE_HOME/skills skills, one clear error says the home is read-only and what to do, and
a message sent says it was not sent and why (no traceback, nothing lost). Local door only: a
real read-only home."""

from __future__ import annotations

import pytest

from birdie_tui.tui import create_app
from birdie_tui.tui.widgets.chat.notice import ErrorBlock, Notice
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar
from tests.read_only import read_only

from .conftest import send, wait_for

pytestmark = pytest.mark.app


async def test_read_only_home_lists_skills_and_says_why_nothing_runs(isolated_home):
    """Read-only home with a user skill: the sidebar lists it and the bundled skills, the
    error names the home, and sending says "Not sent" with the same reason."""
    skill = isolated_home / "skills" / "home-skill" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: HomeSkill\ndescription: lives in BIRDIE_HOME\n---\nbody\n")
    with read_only(isolated_home):
        app = create_app([], cursor_blink=False)  # the default skill folders: bundled, home
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_for(pilot, lambda: app.boot_failed)
            await pilot.pause()
            errors = [str(e.message) for e in app.query(ErrorBlock)]
            assert any(f"BIRDIE_HOME {isolated_home} is read-only" in e
                       and "set BIRDIE_HOME to a writable folder" in e for e in errors), errors
            assert not any("unable to open database file" in e for e in errors)
            names = {row.name for row in app.query_one(SkillSidebar).rows}
            assert {"HomeSkill", "filesystem", "Shell"} <= names, names
            await send(pilot, app, "hello")
            await wait_for(pilot, lambda: any("Not sent" in n.text for n in app.query(Notice)))
            sent = [n.text for n in app.query(Notice) if "Not sent" in n.text][-1]
            assert "is read-only" in sent and "Traceback" not in sent
            assert app.main.pending == ["hello"]  # kept, to send once Birdie runs
