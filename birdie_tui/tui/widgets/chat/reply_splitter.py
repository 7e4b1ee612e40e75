"""Where a streamed reply may be cut into a new Markdown widget, found as its text arrives.

Textual's Markdown re-parses its whole last block on every append, so `AssistantMessage` cuts a
long reply into several Markdown widgets at block boundaries, never inside a code fence.
"""

from __future__ import annotations

import re

SPLIT_CHARS = 6_000
# Lists and quotes are one block each: cut them sooner. A streaming list keeps its widgets
# (reply_lists), a quote is mounted anew each flush (Textual's), so a quote is cut much sooner.
BLOCK_SPLIT_CHARS = 1_200
QUOTE_SPLIT_CHARS = 400

# A top-level list item ("- x", "* x", "+ x", "12. x"): never a setext underline or a rule.
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)]) +\S")


class ParagraphSplitter:
    """Finds safe places to start a new Markdown widget in text that arrives in pieces.

    Outside a ``` / ~~~ fence, a safe place is the start of an unindented line that follows a
    blank line (once the current widget holds `limit` characters), a top-level list item (once
    it holds `block_limit`), or a quote paragraph after an empty `>` line (once it holds
    `quote_limit`, by default `block_limit` too). Each part of a cut list or quote renders as
    a list or quote of its own.
    """

    def __init__(self, limit: int = SPLIT_CHARS, block_limit: int = BLOCK_SPLIT_CHARS,
                 quote_limit: int | None = None) -> None:
        self.limit = limit
        self.block_limit = min(block_limit, limit)
        self.quote_limit = min(block_limit if quote_limit is None else quote_limit, limit)
        self._fence: tuple[str, int] | None = None  # (fence char, run length) while inside one
        self._tail = ""  # the incomplete last line seen so far
        self._prev_blank = False
        self._prev_quote_blank = False  # the previous line was an empty quote line (">")
        self._segment_len = 0  # characters in the current widget

    @property
    def in_fence(self) -> bool:
        return self._fence is not None

    def feed(self, chunk: str) -> list[int]:
        """Offsets in `chunk` where a new widget should start (usually none)."""
        splits: list[int] = []
        text = self._tail + chunk
        base = -len(self._tail)  # chunk offset of text[0]
        seg_start = -self._segment_len
        pos = 0
        for line in text.splitlines(keepends=True):
            start = base + pos
            pos += len(line)
            # Judge a line's start once: when first seen, with its first character known.
            if start >= 0 and self._fence is None and self._may_split(line, start - seg_start):
                splits.append(start)
                seg_start = start
            if not line.endswith("\n"):
                self._tail = line
                break
            self._classify(line)
        else:
            self._tail = ""
        self._segment_len = len(chunk) - seg_start
        return splits

    def _may_split(self, line: str, held: int) -> bool:
        if line[0] in " \t\r\n" or held < min(self.block_limit, self.quote_limit):
            return False
        quote, lists = held >= self.quote_limit, held >= self.block_limit
        if self._prev_blank:
            return held >= self.limit or (line[0] == ">" and quote) or (
                lists and bool(_LIST_ITEM.match(line)))
        if line[0] == ">":
            inner = _unquote(line)
            return quote and ((self._prev_quote_blank and bool(inner.strip()))
                              or bool(_LIST_ITEM.match(inner)))
        return lists and bool(_LIST_ITEM.match(line))

    def _classify(self, line: str) -> None:
        stripped = _unquote(line).strip()  # a fence inside a quote is still a fence
        self._prev_blank = not stripped
        self._prev_quote_blank = stripped == ">"
        if not stripped or stripped[0] not in "`~":
            return
        char = stripped[0]
        run = len(stripped) - len(stripped.lstrip(char))
        if run < 3:
            return
        if self._fence is None:
            self._fence = (char, run)
        elif char == self._fence[0] and run >= self._fence[1] and not stripped[run:].strip():
            self._fence = None


def _unquote(line: str) -> str:
    """The line without one level of blockquote marker."""
    if not line.startswith(">"):
        return line
    return line[2:] if line.startswith("> ") else line[1:]
