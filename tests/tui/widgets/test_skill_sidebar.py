"""SkillSidebar: rows, toggles by key and mouse, dimming, broken files, kept highlight."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult
from textual.widgets import OptionList

from birdie_tui.service.rows import BrokenSkillFile, SkillRow
from birdie_tui.tui.widgets.skills.broken_files import BrokenFiles, short_path
from birdie_tui.tui.widgets.skills.skill_item import MARK_OFF, MARK_ON, skill_prompt
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

ROWS = [
    SkillRow("web-search", "tools", "Search the web.", 2, tags=("net",), triggers=("search",),
             tool_names=("search", "fetch")),
    SkillRow("style-guide", "knowledge", "House style.", 0, triggers=("style",), enabled=False,
             enabled_by_default=False),
    SkillRow("clock", "mcp", "Time tools.", 1, tool_names=("now",), error="server exited: 1"),
    SkillRow("persona", "always", "Be kind.", 0),
]
BROKEN = [BrokenSkillFile("/home/u/.birdie/skills/bad/SKILL.MD", 3, "unclosed front matter")]


class SidebarApp(App):
    def __init__(self) -> None:
        super().__init__()
        self.toggles: list[tuple[str, bool]] = []

    def compose(self) -> ComposeResult:
        yield SkillSidebar(id="skills")

    def on_mount(self) -> None:
        self.query_one(SkillSidebar).set_skills(ROWS, [])

    def on_skill_sidebar_toggled(self, event: SkillSidebar.Toggled) -> None:
        self.toggles.append((event.name, event.enabled))


def _plain(options: OptionList) -> list[str]:
    return [str(o.prompt) for o in options.options]


async def test_renders_rows_with_marks_kinds_counts_and_title():
    """Rows show mark, kind, tool count and error sign; the title counts the skills on."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        options = sidebar.query_one(OptionList)
        assert options.option_count == 4
        lines = _plain(options)
        assert lines[0].startswith(MARK_ON) and "web-search" in lines[0] and "tools" in lines[0]
        assert lines[0].rstrip().endswith("2")
        assert lines[1].startswith(MARK_OFF) and "know" in lines[1]
        assert "⚠" in lines[2] and "mcp" in lines[2]
        assert "always" in lines[3]
        title = str(sidebar.query_one(".skills--title").render())
        assert "Skills" in title and "3/4 on" in title
        await pilot.pause()
        assert sidebar.outer_size.width == 32


async def test_disabled_rows_are_dimmed():
    """A disabled skill's row is dimmed and an enabled one is not."""
    off = skill_prompt(ROWS[1])
    on = skill_prompt(ROWS[0])
    assert any("dim" in str(span.style) for span in off.spans)
    assert not any("dim" in str(span.style) for span in on.spans)


async def test_click_on_row_posts_toggled_off_and_flips_mark():
    """Clicking a row posts one Toggled message and flips its mark at once, either way."""
    app = SidebarApp()
    seen = []
    async with app.run_test(size=(60, 30), message_hook=seen.append) as pilot:
        options = app.query_one(SkillSidebar).query_one(OptionList)
        await pilot.click(options, offset=(0, 0))  # the toggle mark of the first row
        await pilot.pause()
        assert app.toggles == [("web-search", False)]
        # The hook sees a message at every hop of its bubbling: dedupe by identity.
        toggled = {id(m): m for m in seen if isinstance(m, SkillSidebar.Toggled)}
        assert [(m.name, m.enabled) for m in toggled.values()] == [("web-search", False)]
        # Flipped at once for responsiveness, before the app confirms.
        assert _plain(options)[0].startswith(MARK_OFF)
        # Clicking a disabled row's name turns it on.
        await pilot.click(options, offset=(5, 1))
        await pilot.pause()
        assert app.toggles[-1] == ("style-guide", True)


async def test_keyboard_moves_and_space_or_enter_toggles():
    """Arrow keys move the highlight; Space or Enter toggles the highlighted skill."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        sidebar.query_one(OptionList).focus()
        await pilot.press("down", "down")
        assert sidebar.highlighted_name == "clock"
        await pilot.press("space")
        await pilot.pause()
        assert app.toggles == [("clock", False)]
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.toggles[-1] == ("style-guide", True)


async def test_app_truth_wins_after_toggle():
    """After an optimistic toggle, set_skills from the app restores the state it reports."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        sidebar.query_one(OptionList).focus()
        await pilot.press("space")
        await pilot.pause()
        assert not sidebar.rows[0].enabled
        # The engine refused (e.g. policy): set_skills restores the real state.
        sidebar.set_skills(ROWS, [])
        await pilot.pause()
        assert sidebar.rows[0].enabled
        assert _plain(sidebar.query_one(OptionList))[0].startswith(MARK_ON)


async def test_set_skills_keeps_highlight_by_name():
    """New rows keep the highlight on the same skill by name, or in range if it is gone."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        sidebar.query_one(OptionList).focus()
        await pilot.press("down", "down")
        assert sidebar.highlighted_name == "clock"
        new_rows = [SkillRow("aaa-first", "tools", "New.", 1), *ROWS]
        sidebar.set_skills(new_rows, [])
        await pilot.pause()
        assert sidebar.highlighted_name == "clock"
        assert sidebar.query_one(OptionList).highlighted == 3
        # If the highlighted skill vanished, the highlight stays in range.
        sidebar.set_skills(ROWS[:2], [])
        await pilot.pause()
        assert sidebar.highlighted_name in {"web-search", "style-guide"}


async def test_details_show_highlighted_description_tags_triggers_tools_and_error():
    """Details show the highlighted skill's description, tags, triggers, tools and error."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        details = str(sidebar.query_one(".skills--details").render())
        assert "Search the web." in details
        assert "net" in details and "“search”" in details and "search, fetch" in details
        sidebar.query_one(OptionList).focus()
        await pilot.press("down", "down")
        await pilot.pause()
        details = str(sidebar.query_one(".skills--details").render())
        assert "server exited: 1" in details and "⚠" in details


async def test_broken_files_section_shows_and_hides():
    """The broken-files section lists short path, line and reason; it hides when there are none."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        broken = sidebar.query_one(BrokenFiles)
        assert not broken.display
        sidebar.set_skills(ROWS, BROKEN)
        await pilot.pause()
        assert broken.display and broken.region.height > 0
        assert str(broken.query_one(".broken-files--title").render()) == "Broken files (1)"
        items = str(broken.query_one(".broken-files--items").render())
        assert items == "bad/SKILL.MD:3 — unclosed front matter"
        sidebar.set_skills(ROWS, [])
        await pilot.pause()
        assert not broken.display


async def test_title_counts_broken_files_once():
    """A new broken file (no row of its own) shows in the title's ⚠ count; a skill whose
    file broke after loading is counted once, not as a row and again as a file."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        title = lambda: str(sidebar.query_one(".skills--title").render())  # noqa: E731
        assert "⚠ 1" in title()  # the failed MCP server
        sidebar.set_skills(ROWS, BROKEN)
        await pilot.pause()
        assert "⚠ 2" in title()
        kept = SkillRow("notes", "tools", "Notes.", 1,
                        error="file broken, last good version in use — notes/SKILL.MD:2: x")
        sidebar.set_skills([*ROWS, kept],
                           [*BROKEN, BrokenSkillFile("/s/notes/SKILL.MD", 2, "x")])
        await pilot.pause()
        assert "⚠ 3" in title()
        sidebar.set_skills(ROWS[:2], BROKEN)
        await pilot.pause()
        assert "⚠ 1" in title()


def test_short_path_keeps_last_two_components():
    """A broken file's path is shortened to its last two components."""
    assert short_path("/a/b/c/SKILL.MD") == "c/SKILL.MD"
    assert short_path("SKILL.MD") == "SKILL.MD"


async def test_empty_list():
    """With no skills the title reads 0/0 on and Space toggles nothing."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        sidebar.set_skills([], [])
        await pilot.pause()
        assert "0/0 on" in str(sidebar.query_one(".skills--title").render())
        await pilot.press("space")  # nothing to toggle, nothing breaks
        assert app.toggles == []


async def test_set_skills_keeps_scroll_position():
    """New rows keep the highlighted skill and the list's scroll position."""
    many = [SkillRow(f"skill-{i:02d}", "tools", f"Skill {i}.", 1) for i in range(40)]

    class ManyApp(App):
        def compose(self) -> ComposeResult:
            yield SkillSidebar()

    app = ManyApp()
    async with app.run_test(size=(60, 24)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        sidebar.set_skills(many, [])
        await pilot.pause()
        options = sidebar.query_one(OptionList)
        options.focus()
        for _ in range(25):
            await pilot.press("down")
        await pilot.pause()
        scroll_before = options.scroll_y
        assert scroll_before > 0 and sidebar.highlighted_name == "skill-25"
        sidebar.set_skills([replace(r, enabled=i != 25) for i, r in enumerate(many)], [])
        await pilot.pause()
        assert sidebar.highlighted_name == "skill-25"
        assert options.scroll_y == scroll_before



async def test_the_same_rows_again_rebuild_nothing_and_new_ones_show():
    """The door sends the skill rows after every turn, mostly unchanged: equal rows leave the
    list as it is (a rebuild is a layout pass drawing the same cells); changed rows are shown."""
    app = SidebarApp()
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(SkillSidebar)
        options = sidebar.query_one(OptionList)
        await pilot.pause()
        cleared: list[bool] = []
        clear = options.clear_options
        options.clear_options = lambda: cleared.append(True) or clear()  # type: ignore
        sidebar.set_skills([replace(row) for row in ROWS], [])
        assert cleared == []
        sidebar.set_skills(ROWS, BROKEN)
        await pilot.pause()
        assert cleared == [True] and sidebar.query_one(BrokenFiles).display
        sidebar.set_skills([replace(ROWS[0], enabled=False), *ROWS[1:]], BROKEN)
        await pilot.pause()
        assert len(cleared) == 2 and _plain(options)[0].startswith(MARK_OFF)
