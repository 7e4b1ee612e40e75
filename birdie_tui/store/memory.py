"""User-scoped long-term memory (``sessions/<user>/memory.json``) in Birdie 0.1.5's format.

    {"user_id": "alice", "entries": [{"id": "a3f1c2b0", "timestamp": "...", "content": "..."}]}

The file is re-read on every call so notes added by another process (e.g. the Birdie CLI) show up.
Entries or top-level keys this version does not understand are kept when the file is rewritten.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .jsonio import read_json, write_json_atomic
from .paths import BirdiePaths, validate_user

__all__ = ["MemoryEntry", "MemoryStore", "note_text", "pick"]


@dataclass(frozen=True)
class MemoryEntry:
    """One remembered note."""

    id: str
    timestamp: str
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "timestamp": self.timestamp, "content": self.content}


def _parse(raw: Any) -> MemoryEntry | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("content"), str):
        return None
    entry_id = raw.get("id")
    stamp = raw.get("timestamp")
    return MemoryEntry(
        id=entry_id if isinstance(entry_id, str) else "",
        timestamp=stamp if isinstance(stamp, str) else "",
        content=raw["content"],
    )


def note_text(text: str) -> str:
    """A note as it is kept: stripped; blank raises ValueError."""
    content = (text or "").strip()
    if not content:
        raise ValueError("nothing to remember: the note is empty")
    return content


def pick(ids: list[str | None], key: str | int) -> int | None:
    """Which of the notes (their `ids`, in order) `key` names: the one with that id, else the
    `key`-th (1-based, also as digits); None if none."""
    if isinstance(key, str):
        wanted = key.strip()
        if wanted in ids:
            return ids.index(wanted)
        if not wanted.isdigit():
            return None
        key = int(wanted)
    if isinstance(key, int) and not isinstance(key, bool) and 1 <= key <= len(ids):
        return key - 1
    return None


class MemoryStore:
    """Read, add and delete one user's memory entries. Problems found go to ``warnings``."""

    def __init__(self, paths: BirdiePaths, user: str) -> None:
        self.paths = paths
        self.user = validate_user(user)
        self.warnings: list[str] = []

    @property
    def path(self) -> Path:
        return self.paths.memory_file(self.user)

    def close(self) -> None:
        """Nothing to release (the file is read per call); the database store has connections."""

    def _read(self) -> dict[str, Any]:
        data = read_json(self.path, on_corrupt=self.warnings.append, label="memory file",
                         logs_dir=self.paths.logs_dir)
        if data is None:
            data = {}
        if not isinstance(data.get("entries"), list):
            data["entries"] = []
        data.setdefault("user_id", self.user)
        return data

    def _write(self, data: dict[str, Any]) -> None:
        self.paths.ensure_user_dir(self.user)
        ordered = {"user_id": data.get("user_id", self.user), "entries": data["entries"]}
        ordered.update({k: v for k, v in data.items() if k not in ordered})
        write_json_atomic(self.path, ordered)

    def entries(self) -> list[MemoryEntry]:
        """The readable entries, oldest first (the order Birdie injects them)."""
        return [e for e in map(_parse, self._read()["entries"]) if e is not None]

    def add(self, text: str) -> MemoryEntry:
        """Append a note; blank text raises ValueError."""
        content = note_text(text)
        data = self._read()
        taken = {e.get("id") for e in data["entries"] if isinstance(e, dict)}
        entry_id = uuid.uuid4().hex[:8]
        while entry_id in taken:
            entry_id = uuid.uuid4().hex[:8]
        entry = MemoryEntry(entry_id, datetime.now(timezone.utc).isoformat(), content)
        data["entries"].append(entry.to_dict())
        self._write(data)
        return entry

    def delete(self, key: str | int) -> MemoryEntry | None:
        """Remove the entry with id ``key``, else the ``key``-th (1-based) entry; None if no match."""
        data = self._read()
        raw_entries = data["entries"]
        visible = [(i, e) for i, e in enumerate(raw_entries) if _parse(e) is not None]
        found = pick([raw.get("id") for _, raw in visible], key)
        if found is None:
            return None
        removed = _parse(raw_entries.pop(visible[found][0]))
        self._write(data)
        return removed
