"""A stdio MCP server never outlives a SIGKILLed birdie-tui, even one stuck in a synchronous
tool call that never reads its stdin (the guardian takes its process group down)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import clean_env
from .conftest import SERVERS, mcp_skill
from .test_mcp_stdio import _alive

pytestmark = pytest.mark.integration


def wait_until(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def server_pid(pid_file: Path) -> int | None:
    try:
        text = pid_file.read_text()
    except OSError:
        return None
    return int(text) if text.strip() else None


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["async", "sync"])
def test_sigkill_of_the_app_ends_a_server_in_the_middle_of_a_call(skills_root, isolated_home,
                                                                  tmp_path, mode):
    """birdie-tui --print is SIGKILLed while its MCP server is inside a tool call; the server
    process goes away (async: it reads EOF on stdin; sync: it cannot, the guardian ends it)."""
    pid_file = tmp_path / "server.pid"
    mcp_skill(skills_root, "holder", {"command": "python", "args": [
        str(SERVERS / "hold_server.py"), str(pid_file), *(["--sync"] if mode == "sync" else [])]})
    app = subprocess.Popen([sys.executable, "-m", "birdie_tui.cli", "--skills-dir",
                            str(skills_root), "--print", "call hold"], env=clean_env(isolated_home),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid = None
    try:
        assert wait_until(lambda: server_pid(pid_file) is not None), "the tool never ran"
        pid = server_pid(pid_file)
        assert _alive(pid)
        app.send_signal(signal.SIGKILL)
        app.wait()
        assert wait_until(lambda: not _alive(pid), timeout=20), "the server outlived the app"
    finally:
        if app.poll() is None:
            app.kill()
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)
