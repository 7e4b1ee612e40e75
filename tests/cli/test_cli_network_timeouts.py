"""Bounded waits on the network, said in one line: a LangGraph server that accepts connections
and never answers, and a database stopped in the middle of a session. Real `birdie-tui`
processes against real sockets and a real PostgreSQL."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest

from ..conftest import clean_env
from .helpers import assert_one_line_error, run_cli

pytestmark = pytest.mark.integration


class SilentServer:
    """A loopback TCP server that accepts every connection and never sends a byte."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def test_a_server_that_never_answers_is_one_line_within_the_timeout(tmp_path):
    """`--print --server` on a server that accepts and never answers, with
    BIRDIE_NETWORK_TIMEOUT=2: the process ends on its own (well inside the subprocess's own
    limit, far from the SDK's 300 s), exit 2, one stderr line naming the server and the
    variable, no traceback or warning."""
    server = SilentServer()
    try:
        proc = run_cli(tmp_path, "--server", f"http://127.0.0.1:{server.port}", "--print", "hi",
                       env={"BIRDIE_NETWORK_TIMEOUT": "2"}, timeout=60)
    finally:
        server.close()
    assert proc.returncode == 2, proc.stderr
    line = assert_one_line_error(proc)
    assert f"127.0.0.1:{server.port}" in line and "BIRDIE_NETWORK_TIMEOUT" in line, line
    assert "Warning" not in proc.stderr


@pytest.mark.slow
def test_a_database_stopped_mid_turn_is_one_line(tmp_path):
    """A PostgreSQL server stopped while a turn runs a tool: the process ends by itself with
    a non-zero status and one stderr line naming the database; no pool log lines, no
    traceback."""
    import psycopg

    from ..pg_server import INSTALL_HINT, PgServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip(INSTALL_HINT)
    pg = PgServer(bindir)
    pg.start()
    try:
        url = pg.url(pg.create_database())
        env = clean_env(tmp_path)
        env["BIRDIE_NETWORK_TIMEOUT"] = "3"
        proc = subprocess.Popen(
            [sys.executable, "-m", "birdie_tui.cli", "--database-url", url, "--auto-approve",
             "--print", 'call run_bash {"command": "sleep 5"}'],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(600):  # until the turn has begun: its session row is written
            with psycopg.connect(url, autocommit=True) as conn:
                if conn.execute("SELECT to_regclass('birdie_sessions')").fetchone()[0] and \
                        conn.execute("SELECT count(*) FROM birdie_sessions").fetchone()[0]:
                    break
            time.sleep(0.05)
        pg.stop()
        _out, err = proc.communicate(timeout=120)
    finally:
        pg.stop()
    assert proc.returncode not in (0, None), err
    lines = [line for line in err.strip().splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("birdie-tui: "), err
    assert "database" in lines[0] and "Traceback" not in err
