"""Threads as sessions for `RemoteBirdie`: the browser's rows from thread metadata (the figures
a client wrote there after its last turn, and the server's word on a run: busy, or stopped at an
approval). The figures of an open thread are counted from its history (`thread.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from birdie_tui.service.remote.client import META_KEY
from birdie_tui.service.rows import SessionRow
from birdie_tui.text import title_from

# A thread's run status on the server, as the browser marks it (any client's run).
BUSY = {"busy": "running", "interrupted": "waiting for approval"}


def birdie_meta(thread: dict[str, Any] | None) -> dict[str, Any]:
    """The thread's `birdie` metadata (a copy; empty when there is none)."""
    meta = (thread or {}).get("metadata") or {}
    found = meta.get(META_KEY) if isinstance(meta, dict) else None
    return dict(found) if isinstance(found, dict) else {}


def first_user_text(values: Any) -> str:
    for item in (values or {}).get("messages", ()) if isinstance(values, dict) else ():
        if isinstance(item, dict) and item.get("type") == "human":
            content = item.get("content")
            return content if isinstance(content, str) else str(content)
    return ""


def thread_row(thread: dict[str, Any], current: str | None) -> SessionRow:
    meta = birdie_meta(thread)
    title = meta.get("title") or title_from(first_user_text(thread.get("values"))) \
        or "(untitled)"
    return SessionRow(id=str(thread["thread_id"]), title=str(title),
                      updated_at=str(thread.get("updated_at") or ""),
                      turns=_int(meta.get("turns")), input_tokens=_int(meta.get("input_tokens")),
                      output_tokens=_int(meta.get("output_tokens")),
                      current=thread["thread_id"] == current,
                      created_at=str(thread.get("created_at") or ""),
                      written_by=written_by(meta), busy=BUSY.get(str(thread.get("status")), ""))


def written_by(meta: dict[str, Any]) -> str:
    """"user@host" of the client that last ran a turn on the thread."""
    user, host = str(meta.get("last_user") or ""), str(meta.get("last_host") or "")
    return f"{user}@{host}" if user and host else user or host


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


@dataclass
class ExportMeta:
    """What `agent.export` reads of a session (the local SessionMeta's fields)."""

    id: str
    title: str | None
    created_at: str
    updated_at: str
    turns: int
    input_tokens: int
    output_tokens: int
