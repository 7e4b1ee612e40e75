"""The shared database's schema: applied on open, idempotent, safe when two processes open a
new database at once, and a database newer than this code is refused without a write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from birdie_tui.store.pg.connect import DatabaseUnavailable, connect
from birdie_tui.store.pg.migrations import LATEST, MIGRATIONS, SchemaTooNew, migrate
from birdie_tui.store.pg.sessions import PgSessionStore

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def applied(url: str) -> list[tuple[int, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT version, name FROM birdie_schema_migrations ORDER BY version").fetchall()


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}


def test_a_fresh_database_gets_every_migration_once(pg_url):
    """A fresh database gets every migration once."""
    assert tables(pg_url) == set()
    PgSessionStore(pg_url, "alice").close()
    assert applied(pg_url) == [(v, name) for v, name, _ in MIGRATIONS]
    assert {"birdie_sessions", "birdie_session_days", "birdie_deleted_sessions",
            "birdie_memory", "birdie_schema_migrations"} <= tables(pg_url)


def test_running_again_changes_nothing(pg_url):
    """Running again changes nothing."""
    conn = connect(pg_url)
    assert migrate(conn, pg_url) == [v for v, _, _ in MIGRATIONS]
    store = PgSessionStore(pg_url, "alice")
    made = store.create()
    assert migrate(conn, pg_url) == []
    store.close()
    assert PgSessionStore(pg_url, "bob").load(made.id) is not None  # data kept
    assert len(applied(pg_url)) == len(MIGRATIONS)
    conn.close()


OPEN = r"""
import sys, time, pathlib
from birdie_tui.store.pg.sessions import PgSessionStore
url, go = sys.argv[1:3]
while not pathlib.Path(go).exists():
    time.sleep(0.001)
store = PgSessionStore(url, "p")
print(store.create().id)
"""


@pytest.mark.slow
def test_processes_opening_a_new_database_at_once_apply_each_migration_once(pg_url, tmp_path):
    """Processes opening a new database at once apply each migration once."""
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", OPEN, pg_url, str(go)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(6)]
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, [err for _, err in outs]
    assert len({out.strip() for out, _ in outs}) == 6
    assert applied(pg_url) == [(v, name) for v, name, _ in MIGRATIONS]


def test_a_newer_database_is_refused_with_nothing_written(pg_url):
    """A newer database is refused with nothing written."""
    PgSessionStore(pg_url, "alice").close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO birdie_schema_migrations (version, name) VALUES (%s, 'future')",
                     (LATEST + 1,))
        before = conn.execute("SELECT count(*) FROM birdie_sessions").fetchone()[0]
    with pytest.raises(SchemaTooNew) as caught:
        PgSessionStore(pg_url, "alice")
    message = str(caught.value)
    assert f"schema version {LATEST + 1}" in message and "upgrade birdie-tui" in message
    assert "\n" not in message
    assert isinstance(caught.value, DatabaseUnavailable)  # one handler for both
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM birdie_sessions").fetchone()[0] == before
    assert applied(pg_url)[-1] == (LATEST + 1, "future")


def test_an_unreachable_database_is_one_line_without_the_password(pg_server):
    """An unreachable database is one line without the password."""
    from tests.pg_server import free_port

    url = f"postgresql://bob:s3cretpw@127.0.0.1:{free_port()}/team"
    with pytest.raises(DatabaseUnavailable) as caught:
        PgSessionStore(url, "alice")
    message = str(caught.value)
    assert "s3cretpw" not in message and "\n" not in message
    assert "'team'" in message and "127.0.0.1" in message
