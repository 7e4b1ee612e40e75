"""`/skill new` in the running app: typed in the composer, the skill appears in the
sidebar, the chat says where its file is, and later saves of that file are followed even
though its folder did not exist when the app started. Local door only: a SKILL.MD on disk and
its live reload."""

from __future__ import annotations

import pytest

from tests.tui.app.conftest import wait_for, wait_ready
from tests.tui.app.test_app_live_reload import sidebar_text

pytestmark = pytest.mark.app


async def test_typing_skill_new_shows_the_skill_and_follows_its_file(make_app, isolated_home):
    """Type `/skill new demo`: `#skills` lists demo, a notice names its SKILL.MD; an edit of
    that file (in a folder made after start) reaches the sidebar through the live reload."""
    folder = isolated_home / "skills"
    assert not folder.exists()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.press(*"/skill", "space", *"new", "space", *"demo")
        assert app.query_one("#composer").text == "/skill new demo"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "demo" in sidebar_text(app), timeout=10)
        path = folder / "demo" / "SKILL.MD"
        assert path.is_file()
        await wait_for(pilot, lambda: any(str(path) in n.source for n in app.query(".notice")
                                          if hasattr(n, "source")))
        row = next(r for r in app.query_one("#skills").rows if r.name == "demo")
        assert row.kind == "knowledge" and row.enabled

        await pilot.pause(0.5)  # the watcher is following the new folder
        path.write_text(path.read_text().replace(
            "description: TODO one line saying what this skill knows (the model reads it in "
            "the catalog)", "description: Demo know-how."))
        await wait_for(pilot, lambda: any(r.name == "demo" and r.description == "Demo know-how."
                                          for r in app.query_one("#skills").rows), timeout=10)
