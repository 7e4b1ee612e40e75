"""A 10,000-line SKILL.MD in the real app: the sidebar lists it, a turn that triggers it runs,
and the #context panel shows a bounded start of its body with a note, never all of it (a
Markdown widget needs ~15 s for 10,000 lines, the app frozen meanwhile)."""

from __future__ import annotations

import pytest

from birdie_tui.tui import create_app
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar
from tests.skills.test_skills_huge import LAST, LINES, atlas
from tests.tui.app.conftest import send, wait_for, wait_ready, wait_turn

WIDE = (150, 40)  # the context panel is shown without forcing it
BODY_LIMIT = 35_000  # characters the panel may hold for one body


@pytest.mark.app
@pytest.mark.slow
async def test_a_10000_line_skill_in_the_sidebar_a_turn_and_a_bounded_context_panel(tmp_path):
    """The sidebar has a row for the 10,000-line skill; 'zebra' injects it; the #context
    panel shows the start of its body and says the rest went to the model."""
    folder = tmp_path / "skills" / "atlas"
    folder.mkdir(parents=True)
    (folder / "SKILL.MD").write_text(atlas())
    app = create_app(["--skills-dir", str(tmp_path / "skills")], cursor_blink=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        assert "atlas" in [r.name for r in app.query_one(SkillSidebar).rows]
        await send(pilot, app, "tell me about zebra")
        await wait_turn(pilot, app)
        panel = app.query_one(ContextPanel)
        await wait_for(pilot, lambda: len(panel.calls.records) == 1)
        options = panel.query_one(".context--list")
        row = next(i for i, o in enumerate(options.options) if "atlas" in str(o.prompt))
        options.highlighted = row
        await wait_for(pilot, lambda: panel.body.source.startswith("## Part 0"))
        assert len(panel.body.source) < BODY_LIMIT and LAST not in panel.body.source
        assert "the model got all of it" in panel.body.source
        assert f"{LINES - 6:,}" not in panel.body.source  # a count of what is left, not all


def test_bounded_markdown_cuts_closes_a_cut_fence_and_says_what_is_left():
    """The panel's body helper: a short body is untouched; a long one keeps its first lines,
    closes a code fence the cut left open, and ends with a note of the lines and bytes left."""
    from birdie_tui.tui.widgets.preview import bounded_markdown

    assert bounded_markdown("# Title\n\nshort") == "# Title\n\nshort"
    text = atlas()
    shown = bounded_markdown(text, max_lines=40, where="the model got all of it")
    assert len(shown.splitlines()) < 50 and LAST not in shown
    assert shown.count("```") % 2 == 0
    assert shown.endswith("more not shown here — the model got all of it._")
    cut = bounded_markdown("```\n" + "code\n" * 100, max_lines=10)
    assert cut.splitlines()[10] == "```" and "91 more lines" in cut
