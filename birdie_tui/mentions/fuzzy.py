"""Fuzzy matching of a typed query against many paths, bounded per keystroke.

No fuzzy-matching library is installed (rapidfuzz and friends are not dependencies), and a
scorer over every one of 100,000 paths in Python costs ~100 ms: too slow for a keystroke. So
the work is split by cost: substrings are found by one C-speed regex scan over all the paths
joined into one text (a few ms for 100,000), and only when they are too few is the query
tried as a subsequence ("rdm" finds "README.md") by a second scan of that text with a
pattern that cannot backtrack (index order: shallow first), stopping once enough are found.
The hits are then ranked: a name that starts with the query, a name that holds it, a path
that holds it, a subsequence; then shallower, shorter. It runs off the UI thread.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

SUBSTRING_CAP = 2_000  # substring hits ranked at most (the shallowest first)
SUBSEQUENCE_CAP = 400  # subsequence hits gathered at most


class Matcher:
    """Ranks queries against a growing list of entries (the index's live list): its joined
    lower-case text is rebuilt only when the list has grown."""

    def __init__(self) -> None:
        self._items: list[str] = []
        self._low: list[str] = []
        self._blob = ""
        self._starts: list[int] = []

    def _refresh(self, entries: Sequence[str]) -> None:
        count = len(entries)
        if count == len(self._items):
            return
        new = list(entries[len(self._items):count])
        self._items += new
        low = [item.lower() for item in new]
        self._low += low
        # Each entry's offset in the blob, so a hit's offset names its entry.
        base = len(self._blob)
        self._starts += [base + offset for offset in
                         accumulate((len(s) + 1 for s in low[:-1]), initial=0)] if low else []
        self._blob += "\n".join(low) + "\n" if low else ""

    def rank(self, query: str, entries: Sequence[str], *, limit: int = 50) -> list[str]:
        """The best `limit` entries for `query` (the first ones for an empty query)."""
        self._refresh(entries)
        if not query:
            return self._items[:limit]
        q = query.lower()
        hits = self._substring_hits(q)
        if len(hits) < limit:
            hits.update(self._subsequence_hits(q, hits))
        best = sorted(hits, key=lambda i: _key(self._low[i], q, i))[:limit]
        return [self._items[i] for i in best]

    def _substring_hits(self, q: str) -> set[int]:
        if "\n" in q:
            return set()
        found: set[int] = set()
        for hit in re.finditer(re.escape(q), self._blob):
            found.add(bisect_right(self._starts, hit.start()) - 1)
            if len(found) >= SUBSTRING_CAP:
                break
        return found

    def _subsequence_hits(self, q: str, taken: set[int]) -> set[int]:
        found: set[int] = set()
        for hit in subsequence(q).finditer(self._blob):
            index = bisect_right(self._starts, hit.start()) - 1
            if index not in taken:
                found.add(index)
                if len(found) >= SUBSEQUENCE_CAP:
                    break
        return found


def subsequence(q: str) -> re.Pattern[str]:
    """`q`'s characters in order with anything between: each gap excludes the character after
    it (`a[^b]*b`), so a miss fails without backtracking, with no backtracking."""
    # Not anchored at an entry's start: the scan then jumps from one first character to the
    # next at C speed (anchoring makes it test every position: slower on 100,000 entries).
    gaps = (f"[^{_in_class(char)}\\n]*{re.escape(char)}" for char in q[1:])  # one entry
    return re.compile(re.escape(q[0]) + "".join(gaps))


def _in_class(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


def _key(low: str, q: str, index: int) -> tuple[int, int, int, int]:
    name = low.rstrip("/").rsplit("/", 1)[-1]
    if name.startswith(q):
        tier = 0
    elif q in name:
        tier = 1
    elif q in low:
        tier = 2
    else:
        tier = 3
    return (tier, low.count("/", 0, len(low) - 1), len(low), index)
