"""Snapshot tests of the real app (pytest-textual-snapshot). Deterministic: fixed terminal
size, no cursor blink, pre-written sessions with fixed ids and timestamps, the offline model.
Update with `pytest tests/tui/app/test_snapshots.py --snapshot-update` after a deliberate change.
Local door only: the pictures hold the offline model's replies and the session files."""

from __future__ import annotations

import pytest

from birdie_tui.tui import create_app

from .conftest import send, wait_for, wait_ready, wait_turn, write_session

pytestmark = pytest.mark.app

SID = "2026-01-02_1"


@pytest.fixture
def snap_app(skills_dir, isolated_home):
    write_session(isolated_home, SID, title="snapshot session")

    def factory(*argv: str):
        return create_app(["--skills-dir", str(skills_dir), "--session-id", SID, *argv],
                          cursor_blink=False)

    return factory


def run_turns(*messages: str):
    async def before(pilot):
        app = pilot.app
        await wait_ready(pilot, app)
        for text in messages:
            await send(pilot, app, text)
            await wait_turn(pilot, app)
        await pilot.pause(0.2)

    return before


class TestMainScreen:
    def test_main_screen_after_a_turn(self, snap_compare, snap_app):
        """Wide enough for both side panes."""
        assert snap_compare(snap_app(), terminal_size=(150, 40),
                            run_before=run_turns("hello birdie"))

    def test_medium_120x40_folds_the_panel(self, snap_compare, snap_app):
        """Below 140 columns the context panel folds first; the chat keeps the room."""
        assert snap_compare(snap_app(), terminal_size=(120, 40),
                            run_before=run_turns("hello birdie"))

    def test_both_panes_forced_at_80x24(self, snap_compare, snap_app):
        """Forced open at 80 columns, the side panes shrink and the chat still reads."""
        async def before(pilot):
            await run_turns("hello birdie, tell me something long enough to wrap")(pilot)
            await pilot.press("ctrl+b", "ctrl+t")
            await pilot.pause(0.3)

        assert snap_compare(snap_app(), terminal_size=(80, 24), run_before=before)

    def test_narrow_80x24(self, snap_compare, snap_app):
        """At 80x24 both side panes fold away and the chat takes the whole width."""
        assert snap_compare(snap_app(), terminal_size=(80, 24),
                            run_before=run_turns("hello birdie"))


class TestContextPanel:
    def test_injected_knowledge_body(self, snap_compare, snap_app):
        """Highlighting an injected skill in the context panel shows its knowledge body."""
        async def before(pilot):
            await run_turns("how do I log in to a remote server?")(pilot)
            panel = pilot.app.query_one("#context")
            options = panel.query_one("OptionList")
            options.focus()
            options.highlighted = next(i for i, s in enumerate(panel.record.segments)
                                       if s.kind == "trigger")  # the ssh body
            await pilot.pause(0.3)

        assert snap_compare(snap_app(), terminal_size=(150, 40), run_before=before)


class TestToolBlock:
    def test_tool_block_expanded(self, snap_compare, snap_app):
        """An ok tool block opened on demand above a failed one, which opens by itself."""
        async def before(pilot):
            await run_turns('call echo_text {"text": "hello from a tool"}', "call fail_hard")(pilot)
            blocks = list(pilot.app.query("ToolBlock"))
            blocks[0].toggle()  # the ok one opens on demand; the failed one is open already
            await pilot.pause(0.3)

        assert snap_compare(snap_app(), terminal_size=(120, 40), run_before=before)


class TestSessionBrowser:
    def test_browser(self, snap_compare, snap_app, isolated_home):
        """The session browser (ctrl+s) listing the saved sessions, the current one included."""
        write_session(isolated_home, "2026-01-01_1", title="yesterday's work", turns=4,
                      stamp="2026-01-01T18:05:00+00:00", tokens=(5200, 880))
        write_session(isolated_home, "2026-01-02_2", title="a second thread", turns=2,
                      stamp="2026-01-02T11:00:00+00:00", tokens=(1800, 300))

        async def before(pilot):
            await wait_ready(pilot, pilot.app)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "SessionBrowser")
            await pilot.pause(0.3)

        assert snap_compare(snap_app(), terminal_size=(120, 40), run_before=before)
