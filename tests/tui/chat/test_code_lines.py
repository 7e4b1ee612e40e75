"""A streamed code block draws what Textual draws, rendering only the source lines that changed."""

from __future__ import annotations

import random

import pytest

from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Offset
from textual.highlight import highlight
from textual.selection import Selection
from textual.visual import Visual
from textual.widgets import Label, Static

from birdie_tui.tui.widgets.chat.code_lines import CodeCache, CodeContent
from birdie_tui.tui.widgets.chat.copy_affordance import CopyFence
from birdie_tui.tui.widgets.chat.reply_markdown import ReplyMarkdown

LINES = {
    "python": ['def count(survey, species):', '    """Sum one species."""', "    total = 0",
               "    for site in survey:", "\tif site.name == 'estuary':  # a tab",
               "        total += site.count(species) * 1_000_000 + len('漢字の🐦🐦')", "",
               "    return total", "x = " + "'" + "long " * 30 + "'", '"""a docstring that',
               'runs on"""', "class Survey:", "    pass"],
    "bash": ["for f in *.md; do", '  grep -n "bird" "$f" | head -3', "done", "cat <<EOF",
             "a heredoc line", "EOF", "echo " + "word " * 40],
    "json": ["{", '  "species": ["kittiwake", "gannet"],', '  "count": 12,', "}"],
}


class Host(App[None]):
    CSS = "Static { width: 1fr; }"

    def compose(self) -> ComposeResult:
        yield Static(id="plain")


def _stream(rng: random.Random) -> tuple[str, list[str]]:
    """A language and its code as a stream gets it: lines cut at random points."""
    language = rng.choice(sorted(LINES))
    code = "\n".join(rng.choice(LINES[language]) for _ in range(rng.randint(3, 40)))
    cuts = sorted(rng.sample(range(1, len(code)), min(len(code) - 1, rng.randint(3, 25))))
    return language, [code[:cut] for cut in cuts] + [code + "\n"]


async def test_code_lines_are_the_lines_textual_draws() -> None:
    """Random streams of highlighted Python, shell and JSON (tabs, wide characters, folded long
    lines, blank lines) at several widths and wrap rules: every step's rows and height equal
    Textual's, and most source lines are taken from the cache (the test would pass a cache that
    never reuses anything otherwise)."""
    app = Host()
    rng = random.Random(11)
    drawn = rendered = 0
    cache = CodeCache()  # kept across the cases too: their rules differ, their rows must not mix
    async with app.run_test(size=(90, 30)) as pilot:
        widget = app.query_one("#plain", Static)
        for case in range(60):
            widget.styles.text_wrap = rng.choice(["wrap", "wrap", "nowrap"])
            widget.styles.text_overflow = rng.choice(["fold", "fold", "ellipsis", "clip"])
            widget.styles.line_pad = rng.choice([0, 0, 1])
            await pilot.pause()
            width = rng.choice([90, 41, 17, 8])
            language, steps = _stream(rng)
            for code in steps:
                plain = highlight(code, language=language)
                content = CodeContent(plain, cache)
                before = cache.rendered_lines
                rows = Visual.to_strips(widget, content, width, None, widget.visual_style)
                expected = Visual.to_strips(widget, plain, width, None, widget.visual_style)
                assert rows == expected, (case, width, code)
                assert content.get_height(widget.styles, width) == \
                    plain.get_height(widget.styles, width), (case, width, code)
                drawn += len(plain.plain.split("\n"))
                rendered += cache.rendered_lines - before
    assert drawn > 3000
    assert rendered < drawn // 3


async def test_with_text_selected_the_code_is_drawn_as_textual_draws_it() -> None:
    """A selection styles rows across lines: that render is Textual's own, and still the same."""
    app = Host()
    async with app.run_test(size=(60, 10)) as pilot:
        widget = app.query_one("#plain", Static)
        plain = highlight("def f(x):\n    return x\n", language="python")
        cache = CodeCache()
        content = CodeContent(plain, cache)
        app.screen.selections = {widget: Selection.from_offsets(Offset(2, 0), Offset(5, 1))}
        await pilot.pause()
        assert widget.text_selection is not None
        rows = Visual.to_strips(widget, content, 40, None, widget.visual_style)
        assert rows == Visual.to_strips(widget, plain, 40, None, widget.visual_style)
        assert cache.rendered_lines == 0


class Reply(App[None]):
    def compose(self) -> ComposeResult:
        yield ReplyMarkdown()


async def test_a_streaming_code_block_renders_only_its_new_lines() -> None:
    """A 60-line fence streamed a line at a time into a reply: each frame renders the lines
    that changed (the one growing and the one after it), and the block's rows are Textual's."""
    app = Reply()
    async with app.run_test(size=(80, 30)) as pilot:
        markdown = app.query_one(ReplyMarkdown)
        await markdown.append("Before the code.\n\n```python\n")
        await pilot.pause()
        for n in range(60):
            await markdown.append(f"value_{n} = compute({n}, 'text')\n")
            await pilot.pause()
        fence = markdown.query_one(CopyFence)
        label = fence.query_one("#code-content", Label)
        before = fence.code_cache.rendered_lines
        await markdown.append("last = 1\n")
        await pilot.pause()
        assert fence.code_cache.rendered_lines - before <= 3
        content = label.visual
        assert isinstance(content, CodeContent)
        width = label.size.width
        plain = Content(content.plain, list(content.spans))
        assert Visual.to_strips(label, content, width, None, label.visual_style) == \
            Visual.to_strips(label, plain, width, None, label.visual_style)


async def test_code_without_a_language_is_drawn_plain_and_never_guessed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An unlabelled fence streams without Pygments guessing its language (every lexer tried at
    every flush): plain text, as the finished reply's renderer draws it; a labelled one is
    still highlighted."""
    import textual.highlight

    def guess(code: str, path: str | None) -> str:
        raise AssertionError("guessed")

    monkeypatch.setattr(textual.highlight, "guess_language", guess)
    app = Reply()
    async with app.run_test(size=(80, 30)) as pilot:
        markdown = app.query_one(ReplyMarkdown)
        for piece in ("Plain:\n\n```\n", "def f(x):\n", "    return x\n", "```\n\n",
                      "```python\n", "def g(): pass\n"):
            await markdown.append(piece)
            await pilot.pause()
        plain, python = markdown.query(CopyFence)
        assert {span.style for span in plain._highlighted_code.spans} <= {"$text"}
        assert len({span.style for span in python._highlighted_code.spans}) > 1
