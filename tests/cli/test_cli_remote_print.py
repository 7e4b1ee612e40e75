"""`birdie-tui --server URL --print`, real subprocesses against a real `langgraph dev`: a tool
call that needs approval stops with exit 4 and a pending `approval` event, `--session-id T
--approve all` runs it (exit 0); text mode; `--continue` is the server's latest thread; an
unreachable server or `--database-url` with `--server` is one line."""

from __future__ import annotations

import pytest


from .helpers import assert_one_line_error, events_of, run_cli

pytestmark = pytest.mark.integration

slow = pytest.mark.slow


@pytest.fixture(scope="module")
def server(skills_server):
    return skills_server  # one `langgraph dev` per module, serving the test skills


@slow
def test_approval_stops_with_exit_4_then_approve_runs_it(server, isolated_home):
    """stream-json: the pending approval event and exit 4; then --approve all on that thread
    runs the tool on the server and finishes the turn (exit 0)."""
    target = server.workdir / "made.txt"
    proc = run_cli(isolated_home, "--server", server.url, "--print",
                   f'call touch_file {{"path": "{target}"}}', "--output-format", "stream-json")
    assert proc.returncode == 4, proc.stderr
    events = events_of(proc)
    assert events[0]["type"] == "session" and events[0]["new"] is True
    pending = [e for e in events if e["type"] == "approval"]
    assert [(e["name"], e["decision"]) for e in pending] == [("touch_file", "pending")]
    assert pending[0]["args"] == {"path": str(target)}
    sid = events[0]["id"]
    assert f"--server {server.url} --session-id {sid} --print --approve {pending[0]['id']}" in proc.stderr
    assert not target.exists()
    done = run_cli(isolated_home, "--server", server.url, "--print", "--session-id", sid,
                   "--approve", "all", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    after = events_of(done)
    assert after[0] == {"type": "session", "id": sid, "new": False}
    kinds = [e["type"] for e in after]
    assert kinds.index("approval") < kinds.index("tool_result") < kinds.index("done")
    assert target.exists()


@slow
def test_text_mode_and_continue(server, isolated_home):
    """Text mode prints the reply and the resume command (with --server); --continue opens
    the server's latest thread."""
    proc = run_cli(isolated_home, "--server", server.url, "--print", "hello from afar")
    assert proc.returncode == 0, proc.stderr
    assert "hello from afar" in proc.stdout
    assert f"birdie-tui --server {server.url} --session-id " in proc.stderr
    sid = proc.stderr.rsplit("--session-id ", 1)[1].split()[0]
    again = run_cli(isolated_home, "--server", server.url, "--continue", "--print",
                    "second message", "--output-format", "stream-json")
    assert again.returncode == 0, again.stderr
    assert events_of(again)[0] == {"type": "session", "id": sid, "new": False}


@slow
def test_unknown_thread_and_nothing_pending(server, isolated_home):
    """An unknown --session-id is exit 2 in one line; --approve on a thread with nothing
    pending says so."""
    missing = run_cli(isolated_home, "--server", server.url, "--session-id",
                      "00000000-0000-0000-0000-000000000000", "--print", "hi")
    assert missing.returncode == 2
    assert "not found on the server" in assert_one_line_error(missing)
    proc = run_cli(isolated_home, "--server", server.url, "--print", "hi")
    sid = proc.stderr.rsplit("--session-id ", 1)[1].split()[0]
    nothing = run_cli(isolated_home, "--server", server.url, "--print", "--session-id", sid,
                      "--approve", "all")
    assert nothing.returncode == 2
    assert "no tool call waiting for approval" in assert_one_line_error(nothing)


def test_unreachable_server_is_one_line(isolated_home):
    """Nothing listens there: exit 2, one line naming the URL, no traceback."""
    proc = run_cli(isolated_home, "--server", "http://127.0.0.1:1", "--print", "hi")
    assert proc.returncode == 2
    assert "cannot reach the LangGraph server at http://127.0.0.1:1" in \
        assert_one_line_error(proc)


def test_server_from_the_environment_and_no_database_url_with_it(isolated_home):
    """BIRDIE_SERVER stands for --server; --server with --database-url is a usage error."""
    proc = run_cli(isolated_home, "--print", "hi", env={"BIRDIE_SERVER": "http://127.0.0.1:1"})
    assert proc.returncode == 2 and "cannot reach the LangGraph server" in proc.stderr
    both = run_cli(isolated_home, "--server", "http://127.0.0.1:1", "--database-url",
                   "postgresql://x@127.0.0.1/db", "--print", "hi")
    assert both.returncode == 2
    assert "--server and --database-url cannot be used together" in both.stderr
