"""Snapshot tests of the dialogs, each mounted over a bare app (pytest-textual-snapshot).
Deterministic: fixed terminal size, no cursor blink, fixed rows and timestamps.
Update with `pytest tests/tui/screens/test_screen_snapshots.py --snapshot-update` after a
deliberate change."""

from __future__ import annotations

from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.session_browser import SessionBrowser
from tests.tui.screens.harness import ScreenHarness
from tests.tui.screens.test_session_browser import MemorySessions, sample_rows

def browser() -> ScreenHarness:
    return ScreenHarness(lambda: SessionBrowser(MemorySessions(sample_rows()), cursor_blink=False))


class TestSessionBrowser:
    def test_browser_80x24(self, snap_compare):
        """The session browser with the sample rows at 80x24."""
        assert snap_compare(browser(), terminal_size=(80, 24))

    def test_typed_word_only_filters_120x40(self, snap_compare):
        """A word full of old action letters shows only as a filter with no match."""
        # "random dyne" is full of old action letters: it must show as a filter with no match.
        assert snap_compare(browser(), terminal_size=(120, 40),
                            press=[*"random", "space", *"dyne"])


class TestConfirmDialog:
    def test_delete_session_80x24(self, snap_compare):
        """The delete-session confirmation dialog at 80x24."""
        app = ScreenHarness(lambda: ConfirmScreen("Delete session s3? This removes its history."))
        assert snap_compare(app, terminal_size=(80, 24))
