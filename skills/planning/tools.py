"""Todo list tools for the bundled `planning` skill: a JSON file at $BIRDIE_HOME/todo.json."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

_LOCK = threading.Lock()


def _path() -> Path:
    home = Path(os.environ.get("BIRDIE_HOME") or Path.home() / ".birdie").expanduser()
    return home / "todo.json"


def _load() -> list[dict]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return data if isinstance(data, list) else []


def _save(items: list[dict]) -> None:
    path = _path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(items, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def todo_add(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValueError("todo text must not be empty")
    with _LOCK:
        items = _load()
        new_id = max((int(i.get("id", 0)) for i in items), default=0) + 1
        items.append({"id": new_id, "text": text, "done": False})
        _save(items)
    return f"Added todo #{new_id}: {text}"


def todo_list(include_done: bool = True) -> str:
    items = [i for i in _load() if include_done or not i.get("done")]
    if not items:
        return "The todo list is empty."
    return "\n".join(f"[{'x' if i.get('done') else ' '}] #{i.get('id')} {i.get('text')}" for i in items)


def todo_done(id: int) -> str:  # noqa: A002 - the tool argument is called "id"
    with _LOCK:
        items = _load()
        for item in items:
            if int(item.get("id", -1)) == int(id):
                item["done"] = True
                _save(items)
                return f"Done: #{id} {item.get('text')}"
    raise ValueError(f"no todo item with id {id}")
