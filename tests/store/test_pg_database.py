"""Choosing the store: --database-url, then $BIRDIE_DATABASE_URL, then settings.json; none
keeps the embedded store, unchanged."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from birdie_tui.store import BirdiePaths, MemoryStore, SessionStore
from birdie_tui.store.database import (
    DATABASE_ENV,
    InvalidDatabaseUrl,
    open_memory_store,
    open_session_store,
    resolve_database_url,
)
from birdie_tui.store.pg.memory import PgMemoryStore
from birdie_tui.store.pg.sessions import PgSessionStore
from birdie_tui.store.settings import load_settings

pytestmark = pytest.mark.integration


def write_settings(paths: BirdiePaths, data: dict) -> None:
    paths.home.mkdir(parents=True, exist_ok=True)
    paths.settings_file.write_text(json.dumps(data))


def test_the_command_line_wins_then_the_environment_then_settings(tmp_path):
    """The command line wins then the environment then settings."""
    paths = BirdiePaths(tmp_path)
    write_settings(paths, {"database_url": "postgresql://s@h/settings", "theme": "nord"})
    env = {DATABASE_ENV: "postgres://e@h/env"}
    assert resolve_database_url("postgresql://c@h/cli", env, paths) == "postgresql://c@h/cli"
    assert resolve_database_url(None, env, paths) == "postgres://e@h/env"
    assert resolve_database_url(None, {}, paths) == "postgresql://s@h/settings"
    # An empty value at a level means "the embedded store", whatever is below it.
    assert resolve_database_url("", env, paths) is None
    assert resolve_database_url(None, {DATABASE_ENV: " "}, paths) is None
    assert load_settings(paths)[0].database_url == "postgresql://s@h/settings"


def test_nothing_set_or_a_broken_settings_file_means_the_embedded_store(tmp_path):
    """Nothing set or a broken settings file means the embedded store."""
    paths = BirdiePaths(tmp_path)
    assert resolve_database_url(None, {}, paths) is None
    write_settings(paths, {"database_url": None})
    assert resolve_database_url(None, {}, paths) is None
    paths.settings_file.write_text("{not json")
    assert resolve_database_url(None, {}, paths) is None
    assert isinstance(open_session_store(paths, "alice", None), SessionStore)
    assert isinstance(open_memory_store(paths, "alice", None), MemoryStore)


def test_another_scheme_is_one_line_with_the_password_masked(tmp_path):
    """Another scheme is one line with the password masked."""
    with pytest.raises(InvalidDatabaseUrl) as caught:
        resolve_database_url("mysql://bob:hunter22@db/team", {}, BirdiePaths(tmp_path))
    message = str(caught.value)
    assert "hunter22" not in message and "\n" not in message
    assert "bob:***@db" in message and "postgresql://" in message
    assert isinstance(caught.value, ValueError)


def test_a_url_opens_the_postgres_stores(tmp_path, pg_url):
    """A url opens the postgres stores."""
    paths = BirdiePaths(tmp_path)
    sessions = open_session_store(paths, "alice", pg_url)
    memory = open_memory_store(paths, "alice", pg_url)
    assert isinstance(sessions, PgSessionStore) and isinstance(memory, PgMemoryStore)
    sessions.create()
    assert not (tmp_path / "sessions").exists()  # nothing written under BIRDIE_HOME
    sessions.close()


def test_choosing_the_store_imports_neither_pydantic_nor_psycopg_nor_langgraph():
    """Choosing the store imports neither pydantic nor psycopg nor langgraph."""
    code = ("import sys, birdie_tui.store.database as d\n"
            "d.resolve_database_url(None, {}, None)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pydantic', 'psycopg', 'langgraph')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
