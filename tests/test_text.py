"""birdie_tui.text: the one place that turns message content into text and a failure into a line."""

import subprocess
import sys

import pytest

from birdie_tui.text import content_text, one_line


@pytest.mark.parametrize("content, text", [
    (None, ""),
    ("plain", "plain"),
    ([], ""),
    (["a", "b"], "ab"),
    ([{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}], "Hello"),
    ([{"text": "untyped block counts"}], "untyped block counts"),
    ([{"type": "text-plain", "text": "x"}], "x"),
    ([{"type": "tool_use", "id": "1", "name": "t", "input": {}}, "after"], "after"),
    ([{"type": "reasoning", "text": "hidden"}, {"type": "image_url", "image_url": {}}], ""),
    ([{"type": "text", "text": None}, 3], ""),
    (("tuple", " too"), "tuple too"),
    (42, "42"),
])
def test_content_text(content, text):
    """Message content of any shape (str, blocks, None, other) reduces to its visible text."""
    assert content_text(content) == text


def test_content_text_of_langchain_messages():
    """The text of a LangChain message's block content skips tool_use blocks."""
    from langchain_core.messages import AIMessage

    msg = AIMessage(content=[{"type": "text", "text": "a"}, {"type": "tool_use", "id": "x", "name": "t",
                                                              "input": {}}])
    assert content_text(msg.content) == "a"


class Friendly(Exception):
    user_facing = True


class Sentence(Exception):
    pass


@pytest.mark.parametrize("exc, line", [
    (ValueError("bad value\nsecond line"), "ValueError: bad value"),
    (KeyError(), "KeyError"),
    (RuntimeError("   "), "RuntimeError"),
    (OSError("  padded  \n"), "OSError: padded"),
    (Friendly("Authentication failed at api.example.com: check the key. /retry runs it again"),
     "Authentication failed at api.example.com: check the key. /retry runs it again"),
])
def test_one_line(exc, line):
    """An exception becomes its type and first message line; user-facing errors show as-is."""
    assert one_line(exc) == line


def test_one_line_limit_and_as_is():
    """A long line is cut to the limit, and as_is types show their message without the type."""
    assert one_line(ValueError("x" * 1000)) == "ValueError: " + "x" * 388
    assert len(one_line(ValueError("x" * 1000), limit=50)) == 50
    assert one_line(Sentence("no session 'abc'"), as_is=(Sentence,)) == "no session 'abc'"
    assert one_line(Sentence("no session 'abc'")) == "Sentence: no session 'abc'"


def test_provider_errors_are_shown_as_is():
    """A ProviderError's message is shown as-is, without its type name."""
    from birdie_tui.providers.errors import ProviderError

    assert one_line(ProviderError("Rate limited by api.openai.com. /retry runs the turn again")) == \
        "Rate limited by api.openai.com. /retry runs the turn again"


def test_importing_it_is_free():
    """Importing birdie_tui.text loads no other birdie_tui, LangChain or Textual module."""
    code = "import sys, birdie_tui.text; print(sorted(m for m in sys.modules if m.startswith(('lang', 'textual', 'birdie_tui.'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['birdie_tui.text']"


@pytest.mark.parametrize("count, word, plural, said", [
    (0, "turn", None, "0 turns"), (1, "turn", None, "1 turn"), (2, "note", None, "2 notes"),
    (1, "memory note", None, "1 memory note"), (1_234, "entry", "entries", "1,234 entries"),
])
def test_counted_says_one_in_the_singular(count, word, plural, said):
    """A count and its noun agree: "1 turn", "1 note", "2 notes", never "1 turns"."""
    from birdie_tui.text import counted

    assert counted(count, word, plural) == said
