"""Moving sessions between an embedded BIRDIE_HOME and a shared PostgreSQL database, without
loss: `import_home` (home -> database) and `export_home` (database -> home).

What moves, per session: its JSON exactly as written (Birdie's keys, ours, unknown ones), and its
latest checkpoint with the writes pending on it (an approval waiting, say): the only history
anything ever reads (older checkpoints are pruned anyway). Per user: the memory notes.

Running twice copies nothing twice: a session is known on the other side by its owner and
``created_at`` (Birdie's and ours carry microseconds), a note by its text. An id already taken
there by a different session gets a new id of the same day, reported as renamed. Birdie 0.1.5
sessions (its own keys, its own checkpoints) move like ours. The source is only read.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from birdie_tui.store.jsonio import read_json, write_json_atomic
from birdie_tui.store.memory import MemoryEntry
from birdie_tui.store.paths import BirdiePaths, InvalidName, validate_user
from birdie_tui.store.session_meta import SessionMeta
from birdie_tui.store.sessions import SessionStore

__all__ = ["TransferReport", "export_home", "import_home"]

_SESSION_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})_(\d+)\.json$")


@dataclass
class TransferReport:
    moved: list[str] = field(default_factory=list)  # ids as they are now on the other side
    renamed: dict[str, str] = field(default_factory=dict)  # old id -> new id
    skipped: list[str] = field(default_factory=list)  # already there
    problems: list[str] = field(default_factory=list)
    notes: int = 0  # memory notes copied

    def to_dict(self) -> dict[str, Any]:
        return {"moved": self.moved, "renamed": self.renamed, "skipped": self.skipped,
                "problems": self.problems, "notes": self.notes}


def _users(paths: BirdiePaths, user: str | None) -> list[str]:
    if user is not None:
        return [validate_user(user)]
    found = []
    for folder in sorted(paths.sessions_root.glob("*")):
        try:
            if folder.is_dir():
                found.append(validate_user(folder.name))
        except InvalidName:
            continue
    return found


def _session_files(folder: Path, report: TransferReport) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(folder.glob("*.json")):
        if not _SESSION_FILE.match(path.name):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            report.problems.append(f"{path}: unreadable ({type(exc).__name__}), not moved")
            continue
        if isinstance(data, dict):
            out.append((path.stem, data))
        else:
            report.problems.append(f"{path}: not a session object, not moved")
    return out


def _stamp(data: dict[str, Any]) -> str | None:
    created = data.get("created_at")
    return created if isinstance(created, str) and created else None


async def _latest(saver: Any, thread_id: str) -> Any:
    return await saver.aget_tuple({"configurable": {"thread_id": thread_id,
                                                    "checkpoint_ns": ""}})


async def _copy_checkpoint(source: Any, target: Any, old_id: str, new_id: str) -> None:
    """The latest checkpoint of `old_id` in `source`, with its pending writes, as the latest
    of `new_id` in `target`."""
    found = await _latest(source, old_id)
    if found is None:
        return
    checkpoint = found.checkpoint
    config = {"configurable": {"thread_id": new_id, "checkpoint_ns": ""}}
    saved = await target.aput(config, checkpoint, found.metadata,
                              dict(checkpoint.get("channel_versions") or {}))
    by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for task_id, channel, value in found.pending_writes or ():
        by_task[task_id].append((channel, value))
    for task_id, writes in by_task.items():
        await target.aput_writes(saved, writes, task_id)


async def _open_sqlite(db: Path) -> tuple[Any, Any]:
    from birdie_tui.agent.checkpointer import open_checkpointer

    return await open_checkpointer(db)


# ----------------------------------------------------------------------------- import
async def import_home(from_home: Path, url: str, user: str | None = None) -> TransferReport:
    """Copy every session (or `user`'s) and memory of the embedded home `from_home` into the
    database at `url`."""
    from birdie_tui.agent.pg_checkpoints import open_pg_checkpoints
    from birdie_tui.store.pg.bulk import PgTransferStore
    from birdie_tui.store.pg.memory import PgMemoryStore

    paths = BirdiePaths(Path(from_home))
    report = TransferReport()
    pg = await open_pg_checkpoints(url)
    try:
        for name in _users(paths, user):
            store = PgTransferStore(url, name)
            try:
                await _import_user(paths, name, store, pg, report)
                report.notes += _import_memory(paths, name, PgMemoryStore(url, name))
            finally:
                store.close()
    finally:
        await pg.aclose()
    return report


async def _import_user(paths: BirdiePaths, name: str, store: Any, pg: Any,
                       report: TransferReport) -> None:
    files = _session_files(paths.user_dir(name), report)
    db = paths.checkpoints_db(name)
    if not files:
        return
    conn, saver = await _open_sqlite(db) if db.is_file() else (None, None)
    try:
        for old_id, data in files:
            source = await _latest(saver, old_id) if saver is not None else None
            there = store.find(name, _stamp(data), data)
            if there is not None:
                _skip(report, old_id, there)
                continue
            state = store.id_state(old_id)
            ours = state == "thread" and source is not None and \
                await pg.head(old_id) == source.config["configurable"]["checkpoint_id"]
            target = old_id if state == "free" or ours else store.reserve(old_id[:10])
            if target != old_id:
                report.renamed[old_id] = target
            if source is not None:
                await _copy_checkpoint(saver, pg.saver, old_id, target)
            store.put({**data, "id": target}, name)
            report.moved.append(target)
    finally:
        if conn is not None:
            await conn.close()


def _skip(report: TransferReport, sid: str, there: str) -> None:
    report.skipped.append(sid)
    if there != sid:
        report.renamed[sid] = there


def _import_memory(paths: BirdiePaths, name: str, memory: Any) -> int:
    data = read_json(paths.memory_file(name), on_corrupt=lambda _m: None, label="memory file")
    entries = data.get("entries") if isinstance(data, dict) else None
    copied = 0
    for raw in entries if isinstance(entries, list) else ():
        if isinstance(raw, dict) and isinstance(raw.get("content"), str):
            entry = MemoryEntry(str(raw.get("id") or ""), str(raw.get("timestamp") or ""),
                                raw["content"])
            copied += bool(memory.insert(entry))
    memory.close()
    return copied


# ----------------------------------------------------------------------------- export
async def export_home(to_home: Path, url: str, user: str | None = None) -> TransferReport:
    """Copy every session (or those `user` owns) and memory of the database at `url` into
    the embedded home `to_home`, in Birdie's layout."""
    from birdie_tui.agent.pg_checkpoints import open_pg_checkpoints
    from birdie_tui.store.pg.bulk import PgTransferStore
    from birdie_tui.store.pg.memory import PgMemoryStore

    paths = BirdiePaths(Path(to_home))
    report = TransferReport()
    reader = PgTransferStore(url, validate_user(user) if user else "birdie-tui")
    pg = await open_pg_checkpoints(url)
    try:
        owned = reader.owned(user)
        for name in sorted({row[0] for row in owned} | set(reader.memory_users(user))):
            sessions = [(sid, data) for owner, sid, data in owned if owner == name]
            await _export_user(paths, validate_user(name), sessions, pg, report)
            report.notes += _export_memory(paths, name, PgMemoryStore(url, name))
    finally:
        reader.close()
        await pg.aclose()
    return report


async def _export_user(paths: BirdiePaths, name: str, sessions: list[tuple[str, dict[str, Any]]],
                       pg: Any, report: TransferReport) -> None:
    if not sessions:
        return
    local = SessionStore(paths, name)
    paths.ensure_user_dir(name)
    # What the home holds already, by creation stamp (or whole content, without one).
    known = {_stamp(data) or json.dumps(data, sort_keys=True): sid
             for sid, data in _session_files(paths.user_dir(name), report)}
    conn, saver = await _open_sqlite(paths.checkpoints_db(name))
    try:
        for sid, data in sessions:
            key = _stamp(data) or json.dumps(data, sort_keys=True)
            if key in known:
                _skip(report, sid, known[key])
                continue
            source = await _latest(pg.saver, sid)
            target = await _export_id(local, saver, sid, source)
            if target != sid:
                report.renamed[sid] = target
            if source is not None:
                await _copy_checkpoint(pg.saver, saver, sid, target)
            write_json_atomic(paths.session_file(name, target), {**data, "id": target})
            known[key] = target
            report.moved.append(target)
    finally:
        await conn.close()


async def _export_id(local: SessionStore, saver: Any, sid: str, source: Any) -> str:
    """`sid` if the home has no session, tombstone or foreign history under it; else the
    next free id of that day (its file created exclusively, so no one else takes it)."""
    path = local.paths.session_file(local.user, sid)
    if not path.exists() and not path.with_suffix(".deleted").exists():
        here = await _latest(saver, sid)
        if here is None or (source is not None and here.config["configurable"]["checkpoint_id"]
                            == source.config["configurable"]["checkpoint_id"]):
            return sid  # free, or our own copy from a run cut short
    return local.create(date.fromisoformat(sid[:10]), SessionMeta(id=sid, user_id=local.user)).id


def _export_memory(paths: BirdiePaths, name: str, memory: Any) -> int:
    notes = memory.entries()
    memory.close()
    if not notes:
        return 0
    path = paths.memory_file(name)
    data = read_json(path, on_corrupt=lambda _m: None, label="memory file")
    data = data if isinstance(data, dict) else {"user_id": name}
    entries = listed if isinstance(listed := data.get("entries"), list) else []
    have = {e.get("content") for e in entries if isinstance(e, dict)}
    new = [n.to_dict() for n in notes if n.content not in have]
    if new:
        paths.ensure_user_dir(name)
        write_json_atomic(path, {**data, "user_id": data.get("user_id", name),
                                 "entries": [*entries, *new]})
    return len(new)
