"""The TUI with MCP skills: the sidebar learns a server's tools (or its error) after a turn,
and `/mcp` reports every server."""

from __future__ import annotations

import pytest
from textual.widgets import Markdown

from birdie_tui.tui import create_app
from birdie_tui.tui.widgets.skills.skill_item import skill_details
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

from ..tui.app.conftest import send, wait_for, wait_ready, wait_turn
from .conftest import bash_skill, lab_skill, mcp_skill

pytestmark = pytest.mark.integration


def row(app, name):
    return next(r for r in app.query_one(SkillSidebar).rows if r.name == name)


def notices(app) -> list[str]:
    return [w.source for w in app.query(Markdown) if w.has_class("notice")]


async def test_sidebar_and_mcp_command(skills_root):
    """The sidebar and /mcp show server states, tools and failures; a failure is toasted once."""
    lab_skill(skills_root)
    mcp_skill(skills_root, "ghost", {"command": "birdie-no-such-server-xyz"})
    bash_skill(skills_root)
    app = create_app(["--skills-dir", str(skills_root)], cursor_blink=False)
    toasts = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        app.notify = lambda text, **kw: toasts.append((kw.get("title"), text))
        lab = row(app, "lab")
        assert lab.kind == "mcp" and lab.tool_count == 0 and lab.error is None
        assert lab.server == "stdio · not started (starts on first use)"

        await send(pilot, app, 'call shout {"text": "hi"}')
        await wait_turn(pilot, app)
        await wait_for(pilot, lambda: row(app, "lab").tool_count == 5)
        lab, ghost = row(app, "lab"), row(app, "ghost")
        assert "shout" in lab.tool_names and lab.server == "stdio · running · 5 tools"
        assert "Tools: " in skill_details(lab).plain and "shout" in skill_details(lab).plain
        assert ghost.error and "command not found" in ghost.error
        assert any(t == "MCP server failed" and "ghost" in text for t, text in toasts)

        await send(pilot, app, "/mcp")
        await wait_for(pilot, lambda: any("ghost" in n for n in notices(app)))
        report = next(n for n in notices(app) if "ghost" in n)
        assert "**lab**" in report and "**running**" in report and "`shout`" in report
        assert "**failed**: command not found" in report
        assert str(app.birdie.engine.paths.logs_dir) in report

        await send(pilot, app, "/mcp restart ghost")
        await send(pilot, app, "/mcp restart nobody")
        await wait_for(pilot, lambda: any("no MCP skill 'nobody'" in text for _, text in toasts))
        await wait_for(pilot, lambda: sum("ghost" in n for n in notices(app)) == 2)
        # the error toast is not repeated for the same failure after the next turn
        await send(pilot, app, "hello")
        await wait_turn(pilot, app)
        assert [t for t, _ in toasts].count("MCP server failed") == 1
