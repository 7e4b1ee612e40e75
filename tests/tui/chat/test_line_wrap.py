"""A paragraph re-wrapped from its second-to-last line draws what Textual's whole wrap draws."""

from __future__ import annotations

import random

from textual.app import App, ComposeResult
from textual.content import Content
from textual.style import Style
from textual.visual import Visual
from textual.widgets import Static

from birdie_tui.tui.widgets.chat import line_wrap

WORDS = ["a", "bird", "sings", "at", "dawn,", "the", "estuary", "kittiwake", "漢字の", "🐦🐦",
         "https://example.com/a/long/path", "x" * 45, "co-operative", "end.", "  ", "ü"]
STYLES: list[str | Style] = ["bold", "italic", "underline", Style(link="https://example.com"),
                             "bold italic"]


class Host(App[None]):
    CSS = "Static { width: 1fr; }"

    def compose(self) -> ComposeResult:
        yield Static(id="plain")


def _stream(rng: random.Random) -> list[Content]:
    """Contents as a streamed paragraph gets them: text appended, spans kept, an open span that
    grows, and now and then one that restyles earlier text (a closing marker arriving)."""
    text = ""
    spans: list[tuple[int, int, str | Style]] = []
    growing: tuple[int, str | Style] | None = None
    steps: list[Content] = []
    for _ in range(rng.randint(5, 40)):
        text += "".join(rng.choice(WORDS) + " " for _ in range(rng.randint(1, 6)))
        roll = rng.random()
        if roll < 0.15 and growing is None:
            growing = (rng.randrange(len(text)), rng.choice(STYLES))
        elif roll < 0.25 and growing is not None:
            spans.append((growing[0], len(text), growing[1]))
            growing = None
        elif roll < 0.32:  # earlier text restyled
            start = rng.randrange(len(text))
            spans.append((start, min(len(text), start + rng.randint(1, 30)), rng.choice(STYLES)))
        content = Content(text)
        for start, end, style in spans + ([(growing[0], len(text), growing[1])] if growing else []):
            content = content.stylize(style, start, end)
        steps.append(content)
    return steps


async def test_re_wrapped_lines_are_the_lines_textual_draws():
    """Random streams with spans, wide characters, folded words, runs of spaces and links, at
    several widths and overflow styles: every step's lines equal Textual's, and most steps
    re-wrap only the end (the test would pass a wrap that never reuses anything otherwise)."""
    app = Host()
    rng = random.Random(7)
    reused = compared = 0
    async with app.run_test(size=(90, 30)) as pilot:
        widget = app.query_one("#plain", Static)
        for case in range(120):
            widget.styles.text_overflow = rng.choice(["fold", "ellipsis", "clip"])
            widget.styles.line_pad = rng.choice([0, 0, 1])
            await pilot.pause()
            width = rng.choice([90, 41, 17, 8])
            before: line_wrap.Wrapped | None = None
            for content in _stream(rng):
                wrapped = line_wrap.wrap(widget, content, width, before)
                assert wrapped is not None
                expected = Visual.to_strips(widget, content, width, None, widget.visual_style)
                assert wrapped.lines == expected, (case, width, content.plain)
                if before is not None and line_wrap._kept_lines(before, content):
                    reused += 1
                compared += 1
                before = wrapped
    assert compared > 1500
    assert reused > compared // 3


async def test_what_it_does_not_draw_is_left_to_textual():
    """Newlines, tabs, other alignments and a selection: None, the caller's usual wrap."""
    app = Host()
    async with app.run_test(size=(60, 10)) as pilot:
        widget = app.query_one("#plain", Static)
        assert line_wrap.wrap(widget, Content("two\nlines"), 40, None) is None
        assert line_wrap.wrap(widget, Content("a\ttab"), 40, None) is None
        assert line_wrap.wrap(widget, Content("fine"), 40, None) is not None
        widget.styles.text_align = "center"
        await pilot.pause()
        assert line_wrap.wrap(widget, Content("centred"), 40, None) is None
