"""The last line of defence: whatever text a widget is given, a frame's bytes carry no
control character from it (Textual's own sequences, built from styles, still go out)."""

from __future__ import annotations

import re

from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Static

from birdie_tui.tui import terminal_guard


class Bare(App):
    """A widget that was handed raw hostile text: no door cleaned it."""

    def compose(self) -> ComposeResult:
        yield Static("hi\x1b]52;c;ZXZpbA==\x07 there\x1b[2J\x9b?1049l\x07", markup=False, id="s")


async def test_a_frame_never_carries_a_control_character_from_text():
    """Raw ESC, BEL and C1 in a widget's text are dropped from the bytes the frame becomes."""
    terminal_guard.install()
    app = Bare()
    async with app.run_test() as pilot:
        await pilot.pause()
        out = app.query_one("#s").render_line(0).render(app.console)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out)  # the frame's own colours
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "hi]52;c;ZXZpbA== there[2J?1049l" in text


def test_textual_s_own_links_still_go_out():
    """A style's link is Textual's own OSC 8 and is kept; a link URL carrying an escape is
    dropped, its text kept."""
    terminal_guard.install()
    from rich.console import Console

    console = Console(force_terminal=True, color_system="truecolor")
    good = Strip([Segment("docs", Style(link="https://example.org"))]).render(console)
    assert "\x1b]8;" in good and "https://example.org" in good
    bad = Strip([Segment("docs", Style(link="https://x\x1b]52;c;ZQ==\x07"))]).render(console)
    assert "\x1b]8" not in bad and "docs" in bad and "52" not in bad


def test_the_app_installs_the_guard():
    """Importing the app routes every frame through the guard."""
    import birdie_tui.tui.app  # noqa: F401

    assert terminal_guard.installed()
