"""The recovery bus (store/recovery.py): every file moved aside is announced when it happens,
to the log file and to every listener, with the same text the `.warnings` lists get."""

from __future__ import annotations

import threading
from datetime import date

from birdie_tui.store import BirdiePaths, MemoryStore, SessionStore, load_settings, save_settings
from birdie_tui.store.recovery import add_listener, announce


def _listen():
    heard: list[str] = []
    return heard, add_listener(heard.append)


def test_announce_reaches_listeners_and_the_log_file(paths: BirdiePaths) -> None:
    """Announcements reach every listener despite a failing one, and are logged to the file."""
    heard, remove = _listen()
    other: list[str] = []

    def broken(_msg: str) -> None:
        raise RuntimeError("a listener bug")

    remove_broken = add_listener(broken)
    remove_other = add_listener(other.append)
    try:
        announce("memory file was bad", logs_dir=paths.logs_dir)
    finally:
        remove(), remove_broken(), remove_other()
    # One failing listener does not silence the others.
    assert heard == other == ["memory file was bad"]
    log = (paths.logs_dir / "birdie-tui.log").read_text()
    assert "birdie_tui.recovery" in log and "memory file was bad" in log
    # Removed listeners hear nothing more; removing twice is harmless.
    announce("later", logs_dir=paths.logs_dir)
    remove()
    assert heard == ["memory file was bad"]


def test_announce_from_a_worker_thread(paths: BirdiePaths) -> None:
    """An announcement made from a worker thread reaches the listeners."""
    heard, remove = _listen()
    try:
        worker = threading.Thread(target=announce, args=("from a thread",),
                                  kwargs={"logs_dir": paths.logs_dir})
        worker.start()
        worker.join(10)
    finally:
        remove()
    assert heard == ["from a thread"]


def test_corrupt_session_file_is_announced_when_moved(paths: BirdiePaths) -> None:
    """A corrupt session file is announced with where it was moved, matching store.warnings."""
    store = SessionStore(paths, "alice")
    meta = store.create(date(2026, 4, 29))
    path = paths.session_file("alice", meta.id)
    path.write_text("{ half a session")
    heard, remove = _listen()
    try:
        assert store.load(meta.id) is None
    finally:
        remove()
    [moved] = list(path.parent.glob(f"{path.name}.corrupt-*"))
    # Same text in both places: a boot-time warning is in `.warnings` AND announced.
    assert heard == store.warnings
    [message] = heard
    assert "session file 2026-04-29_1.json was corrupt" in message
    assert str(moved) in message  # says where the file went
    assert str(moved) in (paths.logs_dir / "birdie-tui.log").read_text()


def test_corrupt_memory_and_settings_are_announced(paths: BirdiePaths) -> None:
    """Corrupt memory and settings files are each announced once, matching their warnings."""
    paths.ensure_user_dir("alice")
    paths.memory_file("alice").write_text("[1, 2")
    paths.settings_file.write_text("not json")
    heard, remove = _listen()
    try:
        memory = MemoryStore(paths, "alice")
        assert memory.entries() == []
        _, settings_warnings = load_settings(paths)
    finally:
        remove()
    assert len(heard) == 2
    assert heard[0].startswith("memory file memory.json was corrupt") and "corrupt-" in heard[0]
    assert heard[1].startswith("settings file settings.json was corrupt")
    assert memory.warnings == heard[:1] and settings_warnings == heard[1:]


def test_saving_over_a_corrupt_settings_file_is_announced_too(paths: BirdiePaths) -> None:
    """Saving settings over a corrupt settings file moves it aside and announces that."""
    from birdie_tui.store import Settings

    paths.home.mkdir(parents=True)
    paths.settings_file.write_text("{broken")
    heard, remove = _listen()
    try:
        save_settings(paths, Settings(theme="nord"))
    finally:
        remove()
    assert len(heard) == 1 and "settings.json" in heard[0]
    assert list(paths.home.glob("settings.json.corrupt-*"))
