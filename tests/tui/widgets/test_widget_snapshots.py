"""Snapshot tests of the side widgets (pytest-textual-snapshot): the pictures are the contract.
Each harness App composes only the widget(s) under test, fed with plain frozen rows (never the
engine), and uses the app's stylesheet and bundled themes. Deterministic: fixed terminal size, no
cursor, no timestamps. Update with
`pytest tests/tui/widgets/test_widget_snapshots.py --snapshot-update` after a deliberate change."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.pilot import Pilot

import birdie_tui.tui
from birdie_tui.service.rows import BrokenSkillFile, CallUsage, SkillRow, TokenLedger
from birdie_tui.tui.themes import bundled_themes_path, register_themes
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

APP_CSS = Path(birdie_tui.tui.__file__).parent / "birdie.tcss"

LEDGER = TokenLedger(
    context_window=200_000,
    calls=(CallUsage(41_800, 350, cached=38_400), CallUsage(43_100, 910)),
    session_in=212_400,
    session_out=6_300,
    session_cached=151_000,
    per_turn=(3_200, 18_900, 26_400, 31_700, 42_150, 44_010),
    cost_usd=0.0123,
    turns=6,
)
UNKNOWN_LEDGER = TokenLedger(
    calls=(CallUsage(1_200, 40),), session_in=1_200, session_out=40, per_turn=(1_240,),
    cost_usd=None, turns=1,
)

SKILLS = [
    SkillRow("web-search", "tools", "Search the web and fetch pages.", 2, tags=("net",),
             triggers=("search", "look up"), tool_names=("search", "fetch")),
    SkillRow("style-guide", "knowledge", "House writing style.", 0, triggers=("style",),
             enabled=False, enabled_by_default=False),
    SkillRow("git-helper", "tools", "Git status, diff and log.", 3,
             tool_names=("git_status", "git_diff", "git_log"),
             error="file broken, last good version in use — SKILL.MD:12: triggers must be a list"),
    SkillRow("ghost", "mcp", "Tools from the ghost MCP server.", 0, mcp=True,
             server="stdio · failed", error="MCP server failed: command not found: ghost"),
]
BROKEN = [BrokenSkillFile("/home/u/.birdie/skills/notes/SKILL.MD", 3, "unclosed front matter")]


class ThemedHarness(App[None]):
    """A bare App with birdie's stylesheet and bundled themes, on a chosen theme."""

    CSS_PATH = APP_CSS

    def __init__(self, theme_name: str = "birdie-dark") -> None:
        super().__init__()
        register_themes(self, [bundled_themes_path()])
        self.theme = theme_name


class TokenPanelHarness(ThemedHarness):
    def __init__(self, ledger: TokenLedger, theme_name: str = "birdie-dark") -> None:
        super().__init__(theme_name)
        self.ledger = ledger

    def compose(self) -> ComposeResult:
        panel = TokenPanel(id="tokens")
        panel.show(self.ledger)
        yield panel


class SidebarHarness(ThemedHarness):
    def compose(self) -> ComposeResult:
        sidebar = SkillSidebar(id="skills")
        sidebar.set_skills(SKILLS, BROKEN)
        yield sidebar


class SideBySideHarness(ThemedHarness):
    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            sidebar = SkillSidebar(id="skills")
            sidebar.set_skills(SKILLS, BROKEN)
            yield sidebar
            panel = TokenPanel(id="tokens")
            panel.show(LEDGER)
            yield panel


def highlight_row(index: int):
    """A `run_before` that focuses the skill list and moves the highlight down to row `index`."""

    async def run_before(pilot: Pilot) -> None:
        pilot.app.query_one(SkillSidebar).focus_list()
        await pilot.press(*["down"] * index)
        await pilot.pause()

    return run_before


class TestTokenPanel:
    def test_known_window_with_cache_40x30(self, snap_compare):
        """A 200k window, two calls (one partly cached), cached session totals, a 6-turn trend and $0.0123."""
        assert snap_compare(TokenPanelHarness(LEDGER), terminal_size=(40, 30))

    def test_unknown_window_and_cost_40x30(self, snap_compare):
        """With no known window or price the panel says "unknown", never a false percentage or $0."""
        assert snap_compare(TokenPanelHarness(UNKNOWN_LEDGER), terminal_size=(40, 30))


class TestSkillSidebar:
    def test_marks_warnings_and_broken_file_40x30(self, snap_compare):
        """On/off marks, dimmed disabled row, ⚠ on broken and failed-MCP skills, and the broken-files list."""
        assert snap_compare(SidebarHarness(), terminal_size=(40, 30))

    def test_file_broken_details_40x30(self, snap_compare):
        """Highlighting the skill whose file broke says the last good version is in use, and why."""
        assert snap_compare(SidebarHarness(), terminal_size=(40, 30), run_before=highlight_row(2))

    def test_failed_mcp_details_40x30(self, snap_compare):
        """Highlighting the failed MCP skill shows its server state and the failure in the details."""
        assert snap_compare(SidebarHarness(), terminal_size=(40, 30), run_before=highlight_row(3))


class TestLightTheme:
    def test_sidebar_and_token_panel_light_72x30(self, snap_compare):
        """The skill sidebar and token panel side by side in birdie-light, pinning the light palette."""
        assert snap_compare(SideBySideHarness("birdie-light"), terminal_size=(72, 30))
