"""The start of a big text, for widgets that would otherwise lay out all of it.

Textual lays out what a widget holds on every resize and refresh: a 2 MB user message took
~10 s, and a 10,000-line skill body in a Markdown widget ~15 s (hundreds of widgets, a lexer
guess per code block), with the app frozen meanwhile. These helpers cut a text at a line or
character budget without splitting all of it, and say how much was left out. No Textual.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)


def cut_point(text: str, max_lines: int, max_chars: int) -> int:
    """Where the shown part of `text` ends: after `max_lines` lines or `max_chars`
    characters, whichever comes first (len(text) when all of it fits)."""
    cut = 0
    for _ in range(max_lines):
        found = text.find("\n", cut, max_chars + 1)
        if found < 0:
            return min(len(text), max_chars)
        cut = found + 1
    return min(cut, max_chars)


def human_bytes(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / 1024 / 1024:.1f} MB"
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} bytes"


def left_out(text: str, cut: int) -> str:
    """What is not shown after `cut`, in words: "95,285 more lines, 4.9 MB"."""
    rest = len(text) - cut if text.isascii() else \
        len(text[cut:].encode("utf-8", "surrogatepass"))  # only the rest is encoded
    lines = text.count("\n", cut) + (0 if text.endswith("\n") else 1)
    more = f"{lines:,} more line{'s' if lines != 1 else ''}, " if lines > 1 else ""
    return f"{more}{human_bytes(rest)}"


def head(text: str, max_lines: int, max_chars: int) -> tuple[str, str]:
    """(the shown start of `text`, what was left out in words, or "" when nothing was)."""
    cut = cut_point(text, max_lines, max_chars)
    if cut >= len(text):
        return text, ""
    return text[:cut].rstrip("\n"), left_out(text, cut)


def bounded_markdown(text: str, max_lines: int = 300, max_chars: int = 30_000,
                     where: str = "") -> str:
    """Markdown cut to a budget, a code fence left open by the cut closed, and a note of
    the rest (`where`: where to read all of it, e.g. "the model got all of it")."""
    shown, rest = head(text, max_lines, max_chars)
    if not rest:
        return text
    fences = _FENCE.findall(shown)
    if len(fences) % 2:
        shown += "\n" + fences[-1]
    note = f"… {rest} more not shown here" + (f" — {where}" if where else "")
    return f"{shown}\n\n_{note}._"
