"""`--print` on a shared PostgreSQL database, as real processes: the URL from the flag,
the environment or settings.json; two processes on one session lose no turn; an unreachable
database is one line and exit 2, with nothing written under BIRDIE_HOME."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from birdie_tui.store.pg.sessions import PgSessionStore

from ..conftest import clean_env
from .helpers import assert_one_line_error, events_of, run_cli

pytestmark = pytest.mark.integration


def session_id_of(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    return next(e["id"] for e in events_of(proc) if e["type"] == "session")


def test_print_continue_and_list_through_flag_env_and_settings(pg_url, tmp_path):
    """The URL works from --database-url, $BIRDIE_DATABASE_URL and settings.json alike; -c on
    another machine continues the same user's session; nothing is written under BIRDIE_HOME."""
    laptop, desktop = tmp_path / "laptop", tmp_path / "desktop"
    first = run_cli(laptop, "--database-url", pg_url, "--print", "from the flag",
                    "--output-format", "stream-json")
    sid = session_id_of(first)
    # The same user on another machine, the URL in the environment: `-c` continues it.
    second = run_cli(desktop, "-c", "--print", "from the env", "--output-format", "stream-json",
                     env={"BIRDIE_DATABASE_URL": pg_url})
    assert session_id_of(second) == sid
    # A third, the URL in settings.json.
    (tmp_path / "third").mkdir()
    (tmp_path / "third" / "settings.json").write_text(json.dumps({"database_url": pg_url}))
    third = run_cli(tmp_path / "third", "--session-id", sid, "--print", "from settings")
    assert third.returncode == 0, third.stderr
    # Found again by itself: the resume line needs no URL.
    assert f"Resume this session: birdie-tui --session-id {sid}" in third.stderr
    fourth = run_cli(laptop, "--database-url", pg_url, "-c", "--print", "flag again")
    # Given on the command line: the resume line gives it again, or the id means nothing.
    assert f"birdie-tui --database-url {pg_url} --session-id {sid}" in fourth.stderr
    store = PgSessionStore(pg_url, "tester")
    try:
        meta = store.load(sid)
        assert meta is not None and meta.turns == 4
    finally:
        store.close()
    listed = run_cli(laptop, "sessions", "list", "--json", env={"BIRDIE_DATABASE_URL": pg_url})
    assert listed.returncode == 0, listed.stderr
    assert [row["id"] for row in json.loads(listed.stdout)] == [sid]
    # One conversation exported from the database, by anyone who has the URL.
    exported = run_cli(desktop, "sessions", "export", sid, "--database-url", pg_url,
                       env={"USER": "erin"})
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.count("## Turn ") == 4 and "from the flag" in exported.stdout
    # The embedded store saw none of it.
    for home in (laptop, desktop):
        assert not list(home.rglob("*.json")) and not list(home.rglob("checkpoints.db"))


def test_an_unreachable_database_is_one_line_and_exit_2(tmp_path):
    """Unreachable or not postgresql://: exit 2, one line, no password, no session created."""
    proc = run_cli(tmp_path, "--database-url", "postgresql://me:pw123@127.0.0.1:1/none",
                   "--print", "hello")
    line = assert_one_line_error(proc)
    assert proc.returncode == 2 and "pw123" not in line and "127.0.0.1" in line
    bad = run_cli(tmp_path, "--database-url", "sqlite:///x.db", "--print", "hello")
    assert bad.returncode == 2 and "postgresql://" in assert_one_line_error(bad)
    assert not list(tmp_path.rglob("*.json"))


@pytest.mark.slow
def test_pairs_of_concurrent_turns_on_one_postgres_session_lose_nothing(pg_url, tmp_path):
    """Five pairs of processes continuing one session at once (turns paced to overlap, two
    machines): every turn lands, each reply right after its message, and the count agrees."""
    sid = session_id_of(run_cli(tmp_path / "a", "--database-url", pg_url, "--print", "first",
                                "--output-format", "stream-json"))
    for pair in range(5):
        procs = []
        for side in ("a", "b"):
            env = {**clean_env(tmp_path / side), "BIRDIE_DATABASE_URL": pg_url,
                   "BIRDIE_OFFLINE_TPS": "400", "USER": f"user{side}"}
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "birdie_tui.cli", "--session-id", sid, "--print",
                 f"pair {pair} side {side}"], env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True))
        for proc in procs:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err
    store = PgSessionStore(pg_url, "tester")
    try:
        assert store.load(sid).turns == 11
    finally:
        store.close()
    import asyncio

    from birdie_tui.agent.pg_checkpoints import open_pg_checkpoints

    async def read() -> list:
        from birdie_tui.agent.graph import build_graph

        checkpoints = await open_pg_checkpoints(pg_url)
        try:
            state = await build_graph(checkpoints.saver).aget_state(
                {"configurable": {"thread_id": sid}})
        finally:
            await checkpoints.aclose()
        return list(state.values["messages"])

    history = asyncio.run(read())
    humans = [m.content for m in history if m.type == "human"]
    assert len(humans) == 11 and len(set(humans)) == 11
    for i, message in enumerate(history):
        if message.type == "human":
            assert history[i + 1].type == "ai"
