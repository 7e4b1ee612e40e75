"""`PgMemoryStore`: MemoryStore's API and rules, per user, in the shared database."""

from __future__ import annotations

import pytest

from birdie_tui.store.memory import MemoryEntry
from birdie_tui.store.pg.memory import PgMemoryStore

pytestmark = pytest.mark.integration


def test_notes_are_per_user_oldest_first_and_deleted_by_id_or_number(pg_url):
    """Notes are per user oldest first and deleted by id or number."""
    alice, bob = PgMemoryStore(pg_url, "alice"), PgMemoryStore(pg_url, "bob")
    first = alice.add("  likes tea ")
    second = alice.add("works on birdie")
    third = alice.add("lives in Lyon")
    bob.add("bob's note")
    assert [e.content for e in alice.entries()] == ["likes tea", "works on birdie",
                                                    "lives in Lyon"]
    assert [e.content for e in bob.entries()] == ["bob's note"]
    assert len(first.id) == 8 and first.timestamp
    assert alice.delete(second.id) == second
    assert alice.delete("2") == third  # the 2nd visible note now
    assert alice.delete(5) is None and alice.delete("nope") is None
    assert bob.delete(first.id) is None  # another user's note is not reachable
    assert alice.entries() == [first]
    assert PgMemoryStore(pg_url, "alice").entries() == [first]  # another process sees it


def test_a_blank_note_is_refused(pg_url):
    """A blank note is refused."""
    with pytest.raises(ValueError, match="empty"):
        PgMemoryStore(pg_url, "alice").add("   ")


def test_insert_keeps_an_imported_note_once(pg_url):
    """Insert keeps an imported note once."""
    store = PgMemoryStore(pg_url, "alice")
    note = MemoryEntry("a3f1c2b0", "2026-01-01T00:00:00+00:00", "from birdie")
    assert store.insert(note) and not store.insert(note)
    assert store.entries() == [note]
