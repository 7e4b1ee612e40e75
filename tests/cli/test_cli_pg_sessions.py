"""`birdie-tui sessions list|import|export` on a shared PostgreSQL database, in real
subprocesses: the team's list with who wrote last, moving homes in and out, one-line errors."""

from __future__ import annotations

import json
import socket
from datetime import date

import pytest

from birdie_tui.store import BirdiePaths, SessionStore
from birdie_tui.store.pg.sessions import PgSessionStore

from ..pg_server import free_port
from .helpers import assert_one_line_error, run_cli

pytestmark = pytest.mark.integration


def test_list_shows_the_team_with_who_wrote_last(isolated_home, pg_url):
    """Text and JSON, from --database-url and from $BIRDIE_DATABASE_URL."""
    bob = PgSessionStore(pg_url, "bob")
    meta = bob.create(date(2026, 1, 1))
    bob.set_title(meta, "bob's work")
    PgSessionStore(pg_url, "alice").record_turn(PgSessionStore(pg_url, "alice").load(meta.id),
                                                12, 4)
    text = run_cli(isolated_home, "sessions", "list", "--database-url", pg_url)
    assert text.returncode == 0, text.stderr
    host = socket.gethostname()
    assert meta.id in text.stdout and f"alice@{host}" in text.stdout
    assert "bob's work" in text.stdout
    listed = run_cli(isolated_home, "sessions", "list", "--json",
                     env={"BIRDIE_DATABASE_URL": pg_url})
    rows = json.loads(listed.stdout)
    assert [(r["id"], r["user_id"], r["last_user"], r["last_host"], r["turns"], r["title"])
            for r in rows] == [(meta.id, "bob", "alice", host, 1, "bob's work")]
    # Without a URL: the embedded store, untouched by the database's sessions.
    assert json.loads(run_cli(isolated_home, "sessions", "list", "--json").stdout) == []


def test_import_then_export_through_the_command_line(isolated_home, pg_url, tmp_path):
    """Import reports what moved, a second run says it is all there, export writes a home
    Birdie's layout reads."""
    home = tmp_path / "laptop"
    local = SessionStore(BirdiePaths(home), "carol")
    meta = local.create(date(2026, 2, 3))
    local.set_title(meta, "on the laptop")
    first = run_cli(isolated_home, "sessions", "import", "--from-home", str(home),
                    "--database-url", pg_url)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("imported 1 session, 0 memory notes; 0 already there")
    again = run_cli(isolated_home, "sessions", "import", "--from-home", str(home),
                    "--database-url", pg_url)
    assert again.stdout.startswith("imported 0 sessions, 0 memory notes; 1 already there")
    out = tmp_path / "exported"
    exported = run_cli(isolated_home, "sessions", "export", "--to-home", str(out), "--user",
                       "carol", env={"BIRDIE_DATABASE_URL": pg_url})
    assert exported.returncode == 0, exported.stderr
    data = json.loads((out / "sessions" / "carol" / f"{meta.id}.json").read_text())
    assert data["title"] == "on the laptop" and data["user_id"] == "carol"


def test_errors_are_one_line_with_exit_2(isolated_home, tmp_path):
    """No URL, another scheme, an unreachable server (password masked), and export with
    neither or both of ID and --to-home."""
    no_url = run_cli(isolated_home, "sessions", "import", "--from-home", str(tmp_path))
    assert no_url.returncode == 2 and "--database-url" in assert_one_line_error(no_url)
    bad = run_cli(isolated_home, "sessions", "list", "--database-url", "mysql://u:pw1234@h/d")
    assert bad.returncode == 2 and "pw1234" not in assert_one_line_error(bad)
    down = run_cli(isolated_home, "sessions", "list", "--database-url",
                   f"postgresql://u:pw1234@127.0.0.1:{free_port()}/team")
    line = assert_one_line_error(down)
    assert down.returncode == 2 and "pw1234" not in line and "'team'" in line
    for argv in (["sessions", "export"],
                 ["sessions", "export", "2026-01-01_1", "--to-home", str(tmp_path)]):
        both = run_cli(isolated_home, *argv)
        assert both.returncode == 2 and "--to-home" in assert_one_line_error(both)
