"""What the user typed, across sessions: `$BIRDIE_HOME/input_history.jsonl`, read by ctrl+r.

One JSON string a line, appended (one `write` of one line with O_APPEND, so processes sharing
a home interleave whole lines), private (0600). Bounded: a message over `ENTRY_CHARS` is not
kept (a big paste would crowd out everything else), and once the file passes `MAX_BYTES` it is
rewritten with its newest `LIMIT` entries. A line that is not a JSON string (a torn write, a
hand edit) is skipped, never fatal. The file is this machine's even when sessions live in
PostgreSQL or on a LangGraph server: it is the user's typing, not a session's history.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from birdie_tui.regular_files import open_regular

from .jsonio import FILE_MODE, write_text_atomic
from .paths import ensure_dir

__all__ = ["ENTRY_CHARS", "LIMIT", "MAX_BYTES", "InputHistory"]

LIMIT = 1_000  # entries ctrl+r offers, and those a rewrite keeps
ENTRY_CHARS = 16_000  # a longer message is sent, but not remembered here
MAX_BYTES = 2 * 1024 * 1024  # past this the file is rewritten with its newest LIMIT entries


class InputHistory:
    """The file of earlier inputs; every call reads or appends the file itself (no cache: other
    processes append too)."""

    def __init__(self, path: Path, *, limit: int = LIMIT, max_bytes: int = MAX_BYTES) -> None:
        self.path = Path(path)
        self.limit = limit
        self.max_bytes = max_bytes

    def add(self, text: str) -> None:
        """Remember one input (blank or over `ENTRY_CHARS`: not kept). Never raises for the
        disk: a home that cannot be written loses only this line."""
        if not text.strip() or len(text) > ENTRY_CHARS:
            return
        line = (json.dumps(text, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            ensure_dir(self.path.parent)
            # O_NONBLOCK: a FIFO put in its place fails at once instead of hanging the app.
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK,
                         FILE_MODE)
            try:
                os.write(fd, line)
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            if size > self.max_bytes:
                self._rewrite()
        except OSError:
            return

    def entries(self, limit: int | None = None) -> list[str]:
        """Earlier inputs, newest first, each once (its newest use), at most `limit`."""
        limit = self.limit if limit is None else limit
        seen: set[str] = set()
        newest: list[str] = []
        for text in reversed(self._read()):
            if text not in seen:
                seen.add(text)
                newest.append(text)
                if len(newest) >= limit:
                    break
        return newest

    def _read(self) -> list[str]:
        """Every kept entry, oldest first; lines that are not a JSON string are skipped."""
        try:
            fd = open_regular(self.path)  # a FIFO or a device is no history
        except OSError:
            return []
        try:
            # Only the tail: a file grown far past the bound (another tool, a hand edit) is
            # read as its newest part, never whole.
            start = max(os.fstat(fd).st_size - 2 * self.max_bytes, 0)
            os.lseek(fd, start, os.SEEK_SET)
            with os.fdopen(os.dup(fd), "rb") as fh:
                raw = fh.read(2 * self.max_bytes)
        except OSError:
            return []
        finally:
            os.close(fd)
        lines = raw.splitlines()
        if start:
            lines = lines[1:]  # the first line was cut by the seek
        out: list[str] = []
        for line in lines:
            try:
                value = json.loads(line)
            except ValueError:  # UnicodeDecodeError is one too
                continue
            if isinstance(value, str) and value:
                out.append(value)
        return out

    def _rewrite(self) -> None:
        """The newest `limit` entries, oldest first (a line another process appends during the
        rewrite may be lost: it is history, not a session)."""
        kept = self._read()[-self.limit:]
        write_text_atomic(self.path, "".join(json.dumps(text, ensure_ascii=False) + "\n"
                                             for text in kept))
