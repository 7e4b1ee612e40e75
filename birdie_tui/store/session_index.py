"""The session list's cache, ``sessions/<user>/.session-index``: rebuildable, never trusted
over the session files.

Listing 10,000 sessions by reading every ``<id>.json`` takes most of a second. The index keeps
what a list shows of each file (`SessionSummary`) keyed by file name, with the file's inode,
size, mtime_ns and ctime_ns when it was read. A listing is then one ``os.scandir``, one stat per
file and one read of the index; only files whose stat no longer matches (or that are new) are
read again. Which sessions exist always comes from the directory, never from the index.

One JSON object (compact, written to a temp file in the same folder, then ``os.replace``)::

    {"format": "birdie-tui session index", "version": 1, "user": "<user>",
     "entries": {"<id>.json": [ino, size, mtime_ns, ctime_ns, created_at, updated_at, turns,
                               title, input_tokens, output_tokens], ...}}

Why a JSON file and not a sqlite table: the whole index is read on every listing anyway, a
rename is atomic for readers in other processes without any locking, and a damaged file is
simply ignored (there is no journal or -wal file to go stale next to Birdie's own database).
Two processes may rewrite it in turn: each writes entries it has just checked against the
files, so the last writer wins and the other's work is at worst redone. An index that is
missing, unparsable, of another version or user, or has a malformed entry, is rebuilt (per
entry) from the files, silently: it is a cache, nothing is lost.

Files modified within ``RACY_NS`` of a scan are listed but not cached: a same-size rewrite in
the same file-system timestamp tick would otherwise keep matching the stale entry (git's
"racy clean" problem). Birdie 0.1.5 reads only ``<id>.json``: the name is hidden and ends in
neither ``.json`` nor a session id, so neither Birdie nor id allocation ever sees it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from birdie_tui.regular_files import read_regular

from .session_meta import SessionSummary

__all__ = ["INDEX_NAME", "RACY_NS", "SESSION_FILE_RE", "SessionIndex"]

INDEX_NAME = ".session-index"
FORMAT = "birdie-tui session index"
VERSION = 2  # 2: token totals also read from Birdie 0.15.1's total_* keys
SESSION_FILE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})_(\d+)\.json$")
RACY_NS = 3_000_000_000
# A temp file left by a writer that died; younger ones may belong to a writer still at work.
_STALE_TMP_NS = 3600 * 1_000_000_000
_TMP_PREFIX, _TMP_SUFFIX = f"{INDEX_NAME}.", ".tmp"

Stamp = tuple[int, int, int, int]
Entry = tuple[Stamp, SessionSummary]
Reader = Callable[[str, os.stat_result], "SessionSummary | None"]


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _matches(stamp: Stamp, st: os.stat_result) -> bool:
    return (stamp[2] == st.st_mtime_ns and stamp[1] == st.st_size
            and stamp[0] == st.st_ino and stamp[3] == st.st_ctime_ns)


class SessionIndex:
    """The index of one user's session folder. Thread-safe; one scan at a time per object."""

    def __init__(self, folder: Path, user: str) -> None:
        self.folder = folder
        self.path = folder / INDEX_NAME
        self.user = user
        self._lock = threading.Lock()
        # Entries checked by our last scan, and the index file (its stamp and entry stamps)
        # as we last read or wrote it: while the file keeps that stamp it needs no parsing.
        self._memo: dict[str, Entry] = {}
        self._disk_stamp: Stamp | None = None
        self._disk_entries: dict[str, Stamp] = {}
        self._sorted: list[SessionSummary] | None = None  # the memo, as last sorted
        self._synced = False  # the index file held the memo after the last scan

    def scan(self, read: Reader, order: Callable[[SessionSummary], Any]) -> list[SessionSummary]:
        """Every session file's summary, sorted by ``order``, descending. ``read(name, stat)``
        reads a file the index cannot vouch for (None: not listed — missing, being created,
        or corrupt)."""
        with self._lock:
            known, other = self._known()
            fresh: dict[str, Entry] = {}
            walked = self._walk(read, known, other, fresh)
            if walked is None:
                return []
            found, same = walked
            if same and self._sorted is not None:
                found = list(self._sorted)  # nothing changed: skip the sort
            else:
                found.sort(key=order, reverse=True)
            if not (same and self._synced) and \
                    {name: entry[0] for name, entry in fresh.items()} != self._disk_entries:
                self._write(fresh)
            self._synced = True  # the file holds `fresh` (or cannot be written: same thing)
            self._memo = fresh
            self._sorted = list(found) if len(fresh) == len(found) else None
            return found

    def _walk(self, read: Reader, known: dict[str, Entry], other: dict[str, Entry],
              fresh: dict[str, Entry]) -> tuple[list[SessionSummary], bool] | None:
        """(summaries in directory order, whether they are exactly ``known``'s), filling
        ``fresh`` with the entries worth keeping; None if there is no folder."""
        horizon = time.time_ns() - RACY_NS
        found: list[SessionSummary] = []
        same = True
        try:
            entries = os.scandir(self.folder)
        except (FileNotFoundError, NotADirectoryError):
            return None
        with entries:
            for entry in entries:
                name = entry.name
                hit = known.get(name)  # a known name was a session file's, no need to match it
                if hit is None and not SESSION_FILE_RE.match(name):
                    if name.startswith(_TMP_PREFIX) and name.endswith(_TMP_SUFFIX):
                        _sweep(entry)
                    continue
                try:
                    st = entry.stat()
                except FileNotFoundError:  # deleted since the directory was read
                    continue
                if hit is None or not _matches(hit[0], st):
                    same, hit = False, other.get(name)
                    if hit is None or not _matches(hit[0], st):
                        hit = None
                summary = hit[1] if hit is not None else read(name, st)
                if summary is None:
                    continue
                found.append(summary)
                if st.st_mtime_ns < horizon and stat.S_ISREG(st.st_mode):
                    # The checked entry itself when there is one: a listing of unchanged
                    # files makes no new objects for the garbage collector to walk.
                    fresh[name] = hit if hit is not None else (stamp_of(st), summary)
                else:
                    same = False
        return found, same and len(found) == len(known)

    # -- the file --------------------------------------------------------------------------

    def _known(self) -> tuple[dict[str, Entry], dict[str, Entry]]:
        """Entries worth checking: ours, and those another process wrote since we looked."""
        try:
            disk_stamp: Stamp | None = stamp_of(os.stat(self.path))
        except OSError:
            disk_stamp = None
        if disk_stamp is not None and disk_stamp == self._disk_stamp:
            return self._memo, {}
        self._synced = False
        disk = self._read() if disk_stamp is not None else {}
        self._disk_stamp = disk_stamp
        self._disk_entries = {name: entry[0] for name, entry in disk.items()}
        return self._memo, disk

    def _read(self) -> dict[str, Entry]:
        try:
            data = json.loads(read_regular(self.path))  # a FIFO would block
        except (OSError, ValueError):  # ValueError covers bad JSON and bad UTF-8
            return {}
        if (not isinstance(data, dict) or data.get("format") != FORMAT
                or data.get("version") != VERSION or data.get("user") != self.user
                or not isinstance(data.get("entries"), dict)):
            return {}
        # Names are not checked: only names of session files are ever looked up.
        out: dict[str, Entry] = {}
        for name, raw in data["entries"].items():
            entry = _entry(raw, self.user, name)
            if entry is not None:
                out[name] = entry
        return out

    def _write(self, fresh: dict[str, Entry]) -> None:
        """Replace the index with ``fresh``; a folder we cannot write to just means no cache."""
        entries = {name: [*stamp, s.created_at, s.updated_at, s.turns, s.title,
                          s.input_tokens, s.output_tokens]
                   for name, (stamp, s) in fresh.items()}
        payload = {"format": FORMAT, "version": VERSION, "user": self.user, "entries": entries}
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, suffix=_TMP_SUFFIX, dir=self.folder)
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as fh:  # mkstemp made it 0o600
                fh.write(data)
            # No fsync: a torn or empty index after a crash fails to parse and is rebuilt.
            os.replace(tmp, self.path)
            self._disk_stamp = stamp_of(os.stat(self.path))
            self._disk_entries = {name: entry[0] for name, entry in fresh.items()}
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _entry(raw: Any, user: str, name: str) -> Entry | None:
    """One stored entry, or None if anything about it is off (it is then read from its file)."""
    if type(raw) is not list or len(raw) != 10:
        return None
    ino, size, mtime, ctime, created, updated, turns, title, inp, out = raw
    if not (type(ino) is int and type(size) is int and type(mtime) is int
            and type(ctime) is int and type(turns) is int and type(inp) is int
            and type(out) is int and type(created) is str and type(updated) is str
            and (title is None or type(title) is str) and turns >= 0 and inp >= 0 and out >= 0):
        return None
    summary = _new_summary(SessionSummary, (name[:-5], user, created, updated, turns, title, inp,
                                            out, "", ""))
    return (ino, size, mtime, ctime), summary


_new_summary = tuple.__new__  # SessionSummary(...) without its keyword-handling wrapper


def _sweep(entry: os.DirEntry[str]) -> None:
    try:
        if entry.stat().st_mtime_ns < time.time_ns() - _STALE_TMP_NS:
            os.unlink(entry.path)
    except OSError:
        pass
