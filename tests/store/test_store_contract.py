"""The store contract (`birdie_tui.store.protocols`): the same tests over the embedded store
(files under BIRDIE_HOME) and a real PostgreSQL database (marked slow: a server is started).
Each store is had through the openers the engine uses (`store.database`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest

from birdie_tui.store.database import open_memory_store, open_session_store
from birdie_tui.store.paths import BirdiePaths
from birdie_tui.store.protocols import (MemoryStoreProtocol, SessionStoreProtocol,
                                        TurnLockProtocol)

DAY = date(2026, 3, 14)
OpenSessions = Callable[[], SessionStoreProtocol]
Store = SessionStoreProtocol | MemoryStoreProtocol


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.slow)])
def url(request: pytest.FixtureRequest) -> str | None:
    """None: the embedded store; else a fresh database's URL."""
    if request.param == "embedded":
        return None
    value: str = request.getfixturevalue("pg_url")
    return value


@pytest.fixture
def opened() -> Iterator[list[Store]]:
    """The stores a test opened, closed after it (the database store holds connections)."""
    stores: list[Store] = []
    yield stores
    for store in stores:
        store.close()


@pytest.fixture
def sessions(url: str | None, tmp_path: Path, opened: list[Store]) -> OpenSessions:
    """Opens the user's session store (another opening is another process's view)."""
    def open_one() -> SessionStoreProtocol:
        store = open_session_store(BirdiePaths(tmp_path / "home"), "alice", url)
        opened.append(store)
        return store
    return open_one


@pytest.fixture
def memory(url: str | None, tmp_path: Path, opened: list[Store]) -> MemoryStoreProtocol:
    """The user's memory store."""
    store = open_memory_store(BirdiePaths(tmp_path / "home"), "alice", url)
    opened.append(store)
    return store


def test_both_stores_satisfy_the_protocols(sessions: OpenSessions,
                                           memory: MemoryStoreProtocol) -> None:
    """What the openers return has every method the protocols name, turn locks included."""
    store = sessions()
    assert isinstance(store, SessionStoreProtocol)
    assert isinstance(memory, MemoryStoreProtocol)
    assert isinstance(store.turn_lock(store.create(DAY).id), TurnLockProtocol)


def test_create_save_and_load(sessions: OpenSessions) -> None:
    """`create` hands out YYYY-MM-DD_1 first and writes it; what `save` wrote is what `load`
    reads back, from another opening too; an unknown id loads as None."""
    store = sessions()
    assert store.next_id(DAY) == "2026-03-14_1"
    provisional = store.provisional(DAY)
    assert not provisional.saved and not store.exists(provisional.id)
    meta = store.create(DAY, provisional)
    assert meta is provisional and meta.saved and meta.id == "2026-03-14_1"
    assert store.exists(meta.id) and meta.created_at
    meta.enabled_skills = ["notes"]
    store.save(meta)
    again = sessions().load(meta.id)
    assert again is not None and again.id == meta.id and again.enabled_skills == ["notes"]
    assert store.load("2026-03-14_99") is None


def test_lists_are_newest_first_and_leave_out_empty_sessions(sessions: OpenSessions) -> None:
    """`list` and `summaries` give the same sessions newest first (by date, then N as a
    number); a session with no turn and no title is left out unless asked for or kept."""
    store = sessions()
    made = [store.create(date(2026, 3, d)) for d in (13, 14, 14, 14)]
    for _ in range(10):
        made.append(store.create(DAY))
    for meta in made[:-1]:
        store.set_title(meta, f"talk {meta.id}")
    newest_first = sorted((m.id for m in made),
                          key=lambda i: (i[:10], int(i.rpartition("_")[2])), reverse=True)
    assert newest_first[0] == "2026-03-14_13"
    assert [m.id for m in store.list(include_empty=True)] == newest_first
    assert [s.id for s in store.summaries(include_empty=True)] == newest_first
    assert [m.id for m in store.list()] == newest_first[1:]  # the untitled one is empty
    assert [s.id for s in store.summaries(keep=made[-1].id)] == newest_first
    latest = store.latest()
    assert latest is not None and latest.id == newest_first[1]


def test_rename_and_count_a_turn(sessions: OpenSessions) -> None:
    """`set_title` stores the title on one line (blank clears it); `record_turn` counts the
    turn and its tokens; both are saved, as another opening sees."""
    store = sessions()
    meta = store.create(DAY)
    store.set_title(meta, "  plan\n the   trip ")
    assert sessions().load(meta.id).title == "plan the trip"  # type: ignore[union-attr]
    store.record_turn(meta, 120, 30, cached=20, cost=0.5, model="offline · echo")
    seen = sessions().load(meta.id)
    assert seen is not None
    assert (seen.turns, seen.input_tokens, seen.output_tokens) == (1, 120, 30)
    assert seen.turn_costs[-1]["model"] == "offline · echo"
    store.set_title(meta, "   ")
    assert sessions().load(meta.id).title is None  # type: ignore[union-attr]


def test_delete_and_ids_are_never_reused(sessions: OpenSessions) -> None:
    """A deleted session is gone (a second delete says so), and its id is never handed out
    again, not even when it was the day's newest."""
    store = sessions()
    first, second = store.create(DAY), store.create(DAY)
    assert store.delete(second.id) is True
    assert store.load(second.id) is None and not store.exists(second.id)
    assert store.delete(second.id) is False
    assert store.next_id(DAY) == "2026-03-14_3"
    assert store.create(DAY).id == "2026-03-14_3"
    assert sessions().create(DAY).id == "2026-03-14_4"
    assert store.load(first.id) is not None


def test_memory_add_list_and_delete(memory: MemoryStoreProtocol) -> None:
    """Notes are kept stripped, listed oldest first, and deleted by id or by number; a blank
    note is refused and an unknown key deletes nothing."""
    tea, work, city = (memory.add(t) for t in ("  likes tea ", "works on birdie", "in Lyon"))
    assert [e.content for e in memory.entries()] == ["likes tea", "works on birdie", "in Lyon"]
    assert len(tea.id) == 8 and tea.timestamp
    assert memory.delete(work.id) == work
    assert memory.delete("2") == city
    assert memory.delete(7) is None and memory.delete("nope") is None
    assert memory.entries() == [tea]
    with pytest.raises(ValueError, match="empty"):
        memory.add("   ")
