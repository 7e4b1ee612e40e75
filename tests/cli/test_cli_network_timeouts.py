"""Bounded waits on the network, said in one line: a LangGraph server that accepts connections
and never answers, and a database stopped in the middle of a session. Real `birdie-tui`
processes against real sockets and a real PostgreSQL."""

from __future__ import annotations

import socket
import threading

from .helpers import assert_one_line_error, run_cli


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
