"""Big pastes held aside from the composer's text: what it shows is a short marker, what it
sends is the whole paste.

A TextArea rewraps the whole document on every edit (measured: a 5 MB paste took 3.3 s to land
and each key typed after it ~100 ms), and nobody edits 100,000 pasted lines in a ten-line box.
So a paste over `FOLD_CHARS` characters or `FOLD_LINES` lines becomes a marker such as
`[Pasted text #1: 98,304 lines, 5.0 MB]`; `expand` puts the pastes back when the message is
sent. No Textual here: plain text in, plain text out.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from birdie_tui.tui.widgets.preview import human_bytes

FOLD_CHARS = 10_000  # a paste longer than this is held aside (about 2,500 tokens)
FOLD_LINES = 200
MESSAGE_LIMIT = 10 * 1024 * 1024  # bytes (UTF-8) one message may carry, pastes included
REMEMBERED_SENDS = 8  # sent messages whose markers come back with ↑ (history)


def unix_newlines(text: str) -> str:
    """CRLF and lone CR (what many terminals send for Enter in a paste) as LF, as TextArea
    does for a small paste: otherwise a CR-only paste counts as one line and shows glued."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def byte_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def should_fold(text: str) -> bool:
    return len(text) > FOLD_CHARS or text.count("\n", 0, FOLD_CHARS * 2) >= FOLD_LINES


class PasteShelf:
    """The pastes of the message being written, by marker, plus the folded form of the last
    few messages sent (so ↑ brings a big message back as markers, not as megabytes)."""

    def __init__(self, limit: int = MESSAGE_LIMIT):
        self.limit = limit
        self.pastes: dict[str, str] = {}
        self._count = 0
        self._sent: OrderedDict[str, tuple[str, dict[str, str]]] = OrderedDict()

    def hold(self, text: str) -> str:
        """Keep `text` aside; returns the marker that stands for it."""
        text = unix_newlines(text)
        self._count += 1
        marker = (f"[Pasted text #{self._count}: {line_count(text):,} lines, "
                  f"{human_bytes(byte_size(text))}]")
        self.pastes[marker] = text
        return marker

    def too_big(self, text: str, adding: str = "") -> str | None:
        """Why `text` (with `adding` pasted into it) cannot be sent, or None."""
        size = byte_size(self.expand(text)) + byte_size(adding)
        if size <= self.limit:
            return None
        return (f"{human_bytes(size)} is over the {human_bytes(self.limit)} limit for one "
                "message — save it to a file and ask Birdie to read the file instead")

    def expand(self, text: str) -> str:
        """`text` with each marker replaced by its paste, in one pass (a paste that happens to
        contain a marker's words is never expanded again)."""
        markers = [m for m in self.pastes if m in text]
        if not markers:
            return text
        pattern = re.compile("|".join(re.escape(m) for m in markers))
        return pattern.sub(lambda m: self.pastes[m.group(0)], text)

    def sent(self, folded: str, expanded: str) -> None:
        """A message went out: its pastes leave the shelf, its folded form is kept for ↑."""
        if expanded != folded:
            used = {m: p for m, p in self.pastes.items() if m in folded}
            self._sent[expanded] = (folded, used)
            self._sent.move_to_end(expanded)
            while len(self._sent) > REMEMBERED_SENDS:
                self._sent.popitem(last=False)
        self.pastes.clear()

    def fold(self, text: str) -> str:
        """What the composer shows for `text` being loaded (history, a message handed back):
        the markers it was sent with, or one marker for the whole of a big text."""
        hit = self._sent.get(text)
        if hit is not None:
            self.pastes.update(hit[1])
            return hit[0]
        return self.hold(text) if should_fold(text) else text

    def marker_ending_at(self, text: str, offset: int) -> str | None:
        return next((m for m in self.pastes if text.endswith(m, 0, offset)), None)

    def marker_starting_at(self, text: str, offset: int) -> str | None:
        return next((m for m in self.pastes if text.startswith(m, offset)), None)
