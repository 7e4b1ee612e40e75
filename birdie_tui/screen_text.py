"""Text from outside the program, made safe to put on a terminal.

Model tokens, tool output, file contents, skill names, session titles, provider errors and a
server's metadata are all written by someone else. A terminal obeys the escape sequences in
them: set the window title (OSC 0/2), write the clipboard (OSC 52), leave the alternate screen,
move the cursor over what the user reads. Every door that puts such text on a screen goes
through one of three functions here:

- `clean(text)`: display text (a reply, a title, a name, an error). Escape sequences are taken
  out; those a user should know about (OSC other than hyperlinks, DCS/APC/PM/SOS strings) are
  shown as inert text (`␛]52;…`); other control characters become visible symbols (`␇`, `␈`);
  a carriage return is shown as a terminal would leave the line (a progress bar collapses to
  its last state). Newlines and tabs stay.
- `styled(text)`: the same, but colour and style (SGR) survive as Rich styles, so `ls --color`,
  `pytest` and `git diff --color` output looks as it does in a terminal.
- `literal(text)`: what a user approves. Nothing is interpreted: every control character is
  shown as such (`␛`, `\\r`, `\\t`, `\\x9b`, `\\u202e`), so the text on screen is the text that runs.

Standard library only (Rich is imported inside `styled`), so the core, the CLI and the TUI can
all use it. The common case, text with no control character, costs one regex search.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from rich.text import Text

ESC_SYMBOL = "\u241b"  # ␛

# Anything a terminal could act on, plus lone surrogates no encoder takes.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# For `literal`: also the format characters that reorder or hide text (bidi overrides and
# isolates, zero-width joiners, BOM) and the Unicode line separators.
_UNSAFE_LITERAL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\t\u061c\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff]")

# One terminal control function at a time (ECMA-48), in 7-bit and 8-bit (C1) spelling:
# CSI with its parameters; a control string (OSC, DCS, SOS, PM, APC) up to its terminator
# (BEL or ST) or to the next ESC, since a terminal would swallow everything until one came;
# any other escape sequence; a single control character.
_SEQUENCE = re.compile(
    r"(?P<csi>(?:\x1b\[|\x9b)(?P<params>[\x30-\x3f]*)[\x20-\x2f]*(?P<final>[\x40-\x7e])?)"
    r"|(?P<string>(?:\x1b(?P<kind>[\]P_^X])|(?P<kind8>[\x9d\x90\x9f\x9e\x98]))"
    r"(?P<body>[^\x07\x1b\x9c]*)(?:\x07|\x1b\\|\x9c)?)"
    r"|(?P<esc>\x1b[\x20-\x2f]*[\x30-\x7e]?)"
    r"|(?P<ctl>[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff])")

_C1_TO_7BIT = {0x9d: "]", 0x90: "P", 0x9f: "_", 0x9e: "^", 0x98: "X"}
_SGR_PARAMS = re.compile(r"[0-9;:]*")
_SGR_SPLIT = re.compile(r"\x1b\[[0-9;:]*m")
_SGR_KEPT = 8
_OSC_NUMBER = re.compile(r"\d{1,5}")
_OSC_HYPERLINK = "8"  # the link text stays; the link itself is dropped


def symbol(char: str) -> str:
    """A visible stand-in for one control character: the Unicode control pictures for C0
    and DEL (`␛`, `␇`, `␈`), `␛` plus the 7-bit form for C1, U+FFFD for a lone surrogate."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if 0x80 <= code <= 0x9F:
        return ESC_SYMBOL + chr(code - 0x40)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return char


def _string_shown(match: re.Match[str]) -> str:
    """An OSC/DCS/APC/PM/SOS string as inert text: its introducer and (for OSC) its number,
    enough to tell the user something was there (`␛]52;…`) without repeating the payload."""
    kind = match["kind"] or _C1_TO_7BIT[ord(match["kind8"])]
    body = match["body"] or ""
    if kind != "]":
        return f"{ESC_SYMBOL}{kind}…"
    number = _OSC_NUMBER.match(body)
    if number and number.group() == _OSC_HYPERLINK:
        return ""
    return f"{ESC_SYMBOL}]{number.group() if number else ''}{';…' if body else ''}"


def _pieces(text: str, keep_sgr: bool) -> Iterator[tuple[str, str]]:
    """`text` as ("t", visible text) / ("sgr", sequence) / ("cr", "") / ("el", mode) pieces,
    every control function neutralised."""
    pos = 0
    for match in _SEQUENCE.finditer(text):
        if match.start() > pos:
            yield "t", text[pos:match.start()]
        pos = match.end()
        if match["csi"] is not None:
            final, params = match["final"], match["params"] or ""
            if final == "m" and keep_sgr and _SGR_PARAMS.fullmatch(params):
                yield "sgr", f"\x1b[{params}m"
            elif final == "K" and params in ("", "0", "2"):
                yield "el", params or "0"  # erase in line: progress bars redraw with it
            # Every other CSI (cursor moves, erase display, modes, scroll regions) is dropped.
        elif match["string"] is not None:
            shown = _string_shown(match)
            if shown:
                yield "t", shown
        elif match["esc"] is not None:
            yield "t", ESC_SYMBOL + match["esc"][1:]
        elif match["ctl"] == "\r":
            yield "cr", ""
        else:
            yield "t", symbol(match["ctl"])
    if pos < len(text):
        yield "t", text[pos:]


class _Line:
    """One line as a terminal would leave it: text written over from column 0 after a
    carriage return, cut at the cursor by an erase-in-line. Cells hold a character and the
    style sequences that were active where it was written."""

    def __init__(self) -> None:
        self.cells: list[tuple[str, str]] = []
        self.col = 0
        self.style = ""

    def write(self, text: str) -> None:
        for char in text:
            cell = (char, self.style)
            if self.col < len(self.cells):
                self.cells[self.col] = cell
            else:
                self.cells.append(cell)
            self.col += 1

    def sgr(self, sequence: str) -> None:
        if sequence in ("\x1b[m", "\x1b[0m"):
            self.style = ""
        else:  # the last few are enough to style a cell; a flood of them must not grow it
            self.style = "".join([*_SGR_SPLIT.findall(self.style)[-(_SGR_KEPT - 1):], sequence])

    def erase(self, mode: str) -> None:
        if mode == "2":
            self.cells = [(" ", "")] * self.col if self.col else []
        else:
            del self.cells[self.col:]

    def render(self) -> str:
        out: list[str] = []
        current = ""
        for char, style in self.cells:
            if style != current:
                out.append("\x1b[0m" + style if current else style)
                current = style
            out.append(char)
        if current:
            out.append("\x1b[0m")
        return "".join(out)


def _render_line(line: str, keep_sgr: bool) -> str:
    pieces = list(_pieces(line, keep_sgr))
    if not any(kind in ("cr", "el") for kind, _ in pieces):
        return "".join(value for _, value in pieces)
    model = _Line()
    for kind, value in pieces:
        if kind == "t":
            model.write(value)
        elif kind == "sgr":
            model.sgr(value)
        elif kind == "cr":
            model.col = 0
        else:
            model.erase(value)
    return model.render()


def _neutralise(text: str, keep_sgr: bool) -> str:
    text = text.replace("\r\n", "\n")
    return "\n".join(_render_line(line, keep_sgr) for line in text.split("\n"))


def clean(text: str) -> str:
    """Display text with every terminal control function neutralised (see the module doc)."""
    if not _UNSAFE.search(text):
        return text
    return _neutralise(text, keep_sgr=False)


def styled(text: str) -> Text:
    """Tool output as a Rich `Text`: SGR colours and styles kept, everything else as `clean`."""
    from rich.text import Text

    if not _UNSAFE.search(text):
        return Text(text)
    return Text.from_ansi(_neutralise(text, keep_sgr=True))


def one_line(text: str) -> str:
    """`clean` for a place with room for one line (a title, a name, a status): newlines and
    tabs become spaces."""
    return " ".join(clean(text).replace("\t", " ").split("\n"))


_BACKSLASHED = {"\t": "\\t", "\r": "\\r", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"}


def _literal_char(char: str) -> str:
    code = ord(char)
    if char in _BACKSLASHED:
        return _BACKSLASHED[char]
    if code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF:
        return symbol(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def literal(text: str) -> str:
    """Text a user approves, with every control and invisible format character shown as
    such (`␛`, `\\r`, `\\t`, `\\x9b`, `\\u202e`) and none interpreted. Newlines stay: a command
    may span lines, and the dialog shows each one."""
    if not _UNSAFE_LITERAL.search(text):
        return text
    return _UNSAFE_LITERAL.sub(lambda m: _literal_char(m.group()), text)


def literal_spans(text: str) -> list[tuple[str, bool]]:
    """`literal(text)` as (piece, made_visible) pairs, so a screen can mark the stand-ins
    (a real `\\r` then never looks like the two characters `\\r` typed in a command)."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for match in _UNSAFE_LITERAL.finditer(text):
        if match.start() > pos:
            out.append((text[pos:match.start()], False))
        out.append((_literal_char(match.group()), True))
        pos = match.end()
    if pos < len(text):
        out.append((text[pos:], False))
    return out
