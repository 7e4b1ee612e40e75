"""ContextPanel: what was injected, why, at what cost, and the body of the chosen one."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown, OptionList

from birdie_tui.service.rows import InjectionRow, InjectionView
from birdie_tui.tui.widgets.panels.context_panel import EMPTY_TEXT, ContextPanel, reason_label

VIEW = InjectionView(
    catalog_tokens=320,
    prompt_tokens=1_840,
    skills=[
        InjectionRow("style-guide", "trigger:write a haiku", 410, "# Style\n\nUse **short** lines."),
        InjectionRow("persona", "always_inject", 55, "Be kind and brief."),
        InjectionRow("git-help", "loaded", 12_500, "## Git\n\n- commit often"),
    ],
    memory=["User prefers metric units.", "Project is called birdie."],
)


class PanelApp(App):
    def compose(self) -> ComposeResult:
        yield ContextPanel(id="context")


def _text(widget) -> str:
    return str(widget.render())


def test_reason_labels():
    """Injection reasons read as short labels: trigger with its phrase, always, loaded."""
    assert reason_label("trigger:haiku") == "trigger “haiku”"
    assert reason_label("always_inject") == "always"
    assert reason_label("loaded") == "loaded"


async def test_shows_summary_reasons_tokens_and_memory():
    """The panel shows prompt and catalog sizes, each skill's reason and tokens, and memory."""
    app = PanelApp()
    async with app.run_test(size=(70, 30)) as pilot:
        panel = app.query_one(ContextPanel)
        panel.show(VIEW)
        await pilot.pause()
        assert _text(panel.query_one(".context--summary")) == (
            "System prompt ≈ 1,840 tokens · catalog ≈ 320 tokens"
        )
        rows = [str(o.prompt) for o in panel.query_one(OptionList).options]
        assert rows == [
            "style-guide — trigger “write a haiku” — ≈410 tok",
            "persona — always — ≈55 tok",
            "git-help — loaded — ≈12.5k tok",
        ]
        memory = _text(panel.query_one(".context--memory"))
        assert memory.startswith("Long-term memory (2)")
        assert "User prefers metric units." in memory
        assert not panel.query_one(".context--empty").display


async def test_highlighting_a_row_shows_its_body():
    """The first skill's body shows at once; highlighting another row renders that one's body."""
    app = PanelApp()
    async with app.run_test(size=(70, 30)) as pilot:
        panel = app.query_one(ContextPanel)
        panel.show(VIEW)
        await pilot.pause()
        markdown = panel.query_one(Markdown)
        assert markdown.source == VIEW.skills[0].body  # the first is shown straight away
        panel.query_one(OptionList).focus()
        await pilot.press("down")
        await pilot.pause()
        assert markdown.source == "Be kind and brief."
        await pilot.press("down", "enter")
        await pilot.pause()
        assert markdown.source == VIEW.skills[2].body
        # The body is really rendered, not just stored.
        assert "commit often" in " ".join(str(b.render()) for b in markdown.query("MarkdownBlock"))


async def test_click_selects_a_row():
    """Clicking a skill row shows that skill's body."""
    app = PanelApp()
    async with app.run_test(size=(70, 30)) as pilot:
        panel = app.query_one(ContextPanel)
        panel.show(VIEW)
        await pilot.pause()
        await pilot.click(panel.query_one(OptionList), offset=(2, 1))
        await pilot.pause()
        assert panel.query_one(Markdown).source == "Be kind and brief."


async def test_empty_state_and_clear():
    """An empty panel shows the empty text; clear() brings it back, emptying rows, body, memory."""
    app = PanelApp()
    async with app.run_test(size=(70, 30)) as pilot:
        panel = app.query_one(ContextPanel)
        empty = panel.query_one(".context--empty")
        assert empty.display and _text(empty) == EMPTY_TEXT
        panel.show(VIEW)
        await pilot.pause()
        assert not empty.display
        panel.clear()
        await pilot.pause()
        assert empty.display
        assert not panel.query_one(OptionList).display
        assert panel.query_one(OptionList).option_count == 0
        assert panel.query_one(Markdown).source == ""
        assert _text(panel.query_one(".context--memory")) == "Long-term memory (0)"
