"""A code block's lexer imported on another thread as soon as its opening fence arrives.

Pygments imports a language's lexer module the first time it highlights that language: 20-25 ms
for Python, on the UI thread, inside the flush that mounts the block (with the first highlight,
a 46-64 ms append, bench/RESULTS.md §43). A reply's text reaches `AssistantMessage.append` a
window or more before the flush that draws it, so `FenceWatch` reads the start of each line as
it completes, and an opening fence with a language (```python) has `warm` import that lexer on
a daemon thread, once per language. A flush that comes first waits at Python's import lock for
the rest of that import: never later than without it.
"""

from __future__ import annotations

import re
import threading

from pygments.lexers import get_lexer_by_name

# An opening fence's line: up to three spaces, quote markers, three or more ` or ~, a language.
_FENCE = re.compile(r"[ >]*(?:`{3,}|~{3,})[ \t]*([\w.+#-]+)")
_HEAD = 80  # characters of a line kept until it ends: enough for a fence and its language
MAX_LANGUAGES = 64  # a reply naming a thousand made-up languages starts no more threads

_started: set[str] = set()
_lock = threading.Lock()


def warm(language: str) -> threading.Thread | None:
    """Import `language`'s lexer on a daemon thread, unless asked before (the thread, if new)."""
    language = language.lower()
    with _lock:
        if language in _started or len(_started) >= MAX_LANGUAGES:
            return None
        _started.add(language)
    thread = threading.Thread(target=_import_lexer, args=(language,), daemon=True,
                              name="birdie-lexer-warmup")
    thread.start()
    return thread


def _import_lexer(language: str) -> None:
    try:
        get_lexer_by_name(language)
    except Exception:  # an unknown name: the block is drawn as plain text, as it would be
        pass


class FenceWatch:
    """Reads a reply's text as it arrives and warms the lexer of each fence that opens."""

    def __init__(self) -> None:
        self._head = ""  # the start of the line not yet ended

    def feed(self, fragment: str) -> None:
        if "\n" not in fragment:
            if len(self._head) < _HEAD:
                self._head += fragment[:_HEAD]
            return
        first, *middle, last = fragment.split("\n")
        self._check(self._head + first)
        for line in middle:
            self._check(line)
        self._head = last[:_HEAD]

    @staticmethod
    def _check(line: str) -> None:
        if ("`" in line or "~" in line) and (fence := _FENCE.match(line)):
            warm(fence.group(1))
