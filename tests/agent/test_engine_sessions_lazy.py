"""Lazy sessions: a new session reaches the disk only when its first turn runs (no empty
sessions), ids of deleted sessions are never reused, and `--continue` finds real work."""

from __future__ import annotations

import json

import pytest

from birdie_tui.agent.engine import Engine, EngineError, EngineOptions
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.store import SessionStore
from birdie_tui.store.recovery import add_listener

from .conftest import collect


def session_files(engine: Engine) -> list[str]:
    folder = engine.paths.user_dir(engine.user)
    return sorted(p.name for p in folder.glob("*.json")) if folder.is_dir() else []


async def test_opening_and_closing_leaves_no_session(skills_dir, isolated_home):
    """Opening a new session and closing the engine without a turn writes no session file."""
    eng = Engine(EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline")))
    await eng.start()
    try:
        opened = await eng.open_session()
        assert opened.new and not eng.session_saved and eng.session.saved is False
        assert await eng.messages() == [] and await eng.messages(opened.id) == []
        assert eng.list_sessions() == []
    finally:
        await eng.aclose()
    assert session_files(eng) == []


async def test_first_turn_saves_the_session_with_its_grants(engine):
    """The first turn saves the provisional session with the grants and title set before it."""
    provisional = engine.session.id
    engine.set_skill_enabled("Quiet", True)
    engine.set_skill_enabled("Echoer", False)
    engine.rename_session(provisional, "my title")
    assert session_files(engine) == []  # grants and title wait in memory
    events = await collect(engine, "call hush")
    assert [e.name for e in events if e.type == "tool_call"] == ["hush"]
    assert engine.session_saved and engine.session.id == provisional
    data = json.loads(engine.paths.session_file(engine.user, provisional).read_text())
    assert data["enabled_skills"] == ["Quiet"] and data["disabled_skills"] == ["Echoer"]
    assert data["title"] == "my title" and data["turns"] == 1
    assert [m.id for m in engine.list_sessions()] == [provisional]


async def test_provisional_id_taken_by_another_process_moves_to_the_next(engine, skills_dir):
    """If another process takes the provisional id first, this session saves under the next id."""
    provisional = engine.session.id
    other = Engine(EngineOptions(skills_dirs=[skills_dir],
                                 provider=ProviderConfig(vendor="offline")))
    await other.start()
    try:
        await other.open_session()
        assert other.session.id == provisional  # both were shown the same next id
        await collect(other, "their conversation")
    finally:
        await other.aclose()
    await collect(engine, "my conversation")
    mine = engine.session.id
    assert mine != provisional and engine.session_saved
    assert [m.content for m in await engine.messages()][0] == "my conversation"
    # Their history was not touched by my turn.
    assert [m.content for m in await engine.messages(provisional)][0] == "their conversation"
    assert session_files(engine) == sorted([f"{provisional}.json", f"{mine}.json"])


async def test_new_session_while_unsaved_reuses_it(engine):
    """Asking for a new session while the current one is unsaved returns that same session."""
    first = engine.session
    engine.set_skill_enabled("Quiet", True)
    again = await engine.new_session()
    assert again is first and not engine.session_saved
    assert session_files(engine) == []
    await collect(engine, "hello")
    fresh = await engine.new_session()
    assert fresh is not first and not engine.session_saved and fresh.id != first.id


async def test_delete_and_rename_of_the_unsaved_session(engine):
    """Renaming and deleting an unsaved session touch no files and reset its grants."""
    engine.set_skill_enabled("Quiet", True)
    sid = engine.session.id
    renamed = engine.rename_session(sid, "  draft  ")
    assert renamed.title == "draft" and session_files(engine) == []
    replacement = await engine.delete_session(sid)
    assert replacement is engine.session and not engine.session_saved
    assert not engine.is_enabled(engine.registry.get("Quiet"))  # a clean slate
    assert replacement.title is None
    assert session_files(engine) == []
    assert not list(engine.paths.user_dir(engine.user).glob("*.deleted"))  # nothing to bury


async def test_deleted_session_id_is_never_handed_out_again(engine):
    """A deleted session's id is not reused and can no longer be opened."""
    await collect(engine, "keep me")
    old = engine.session.id
    replacement = await engine.delete_session(old)
    assert replacement.id != old
    await collect(engine, "a new conversation")
    assert engine.session.id != old
    with pytest.raises(EngineError, match="not found"):
        await engine.open_session(old)


async def test_latest_session_id_skips_empty_sessions(engine):
    """The latest session id skips sessions that have no turns."""
    assert engine.latest_session_id() is None
    await collect(engine, "real work")
    worked = engine.session.id
    SessionStore(engine.paths, engine.user).create()  # an empty file, e.g. from an old version
    assert engine.latest_session_id() == worked


async def test_an_opened_empty_session_stays_in_the_list_while_open(engine):
    """An empty session opened by id is listed while it is open."""
    empty = SessionStore(engine.paths, engine.user).create()
    assert engine.list_sessions() == []
    await engine.open_session(empty.id)  # --session-id still opens it
    assert engine.session_saved
    assert [m.id for m in engine.list_sessions()] == [empty.id]


async def test_corrupt_session_file_is_an_engine_error_and_announced(engine):
    """A corrupt session file raises EngineError, is announced, and the current session stays."""
    await collect(engine, "hello")
    sid = engine.session.id
    await engine.new_session()
    engine.paths.session_file(engine.user, sid).write_text("{ cut off")
    heard: list[str] = []
    remove = add_listener(heard.append)
    try:
        with pytest.raises(EngineError, match="corrupt"):
            await engine.open_session(sid)
    finally:
        remove()
    assert len(heard) == 1 and f"{sid}.json was corrupt" in heard[0]
    assert not engine.session_saved  # still in the session it was in
