"""An MCP server's log stays capped while the server runs: a call that writes 8 MB to stderr
leaves the log and its `.1` near the 1 MB cap each, with the newest lines kept, through the
real engine and a real stdio server."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from birdie_tui.mcp.errlog import LOG_LIMIT, ServerLog

from .conftest import SERVERS, mcp_skill, of_type, turn

pytestmark = pytest.mark.integration


async def until(check, timeout: float = 15.0) -> bool:
    """Polls `check()` until it is true or `timeout` seconds pass."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def test_a_noisy_call_does_not_grow_the_log_past_the_cap(skills_root, engine_for):
    """8 MB of stderr in one call: the call answers, the log holds at most the cap (plus one
    read of the pipe) and ends with the server's last line; `.1` holds the part before."""
    folder = skills_root / "noisy"
    folder.mkdir()
    shutil.copy(SERVERS / "noisy_server.py", folder / "noisy_server.py")
    mcp_skill(skills_root, "noisy", {"transport": "stdio", "command": "python",
                                     "args": ["noisy_server.py"]})
    eng = await engine_for()
    events = await turn(eng, 'call spew {"megabytes": 8}')
    assert of_type(events, "tool_result")[0].content == "spewed 8 MB"
    log = eng.paths.logs_dir / "mcp-noisy.log"
    older = log.with_name(log.name + ".1")
    assert await until(lambda: "spew done" in log.read_text())
    assert log.stat().st_size <= LOG_LIMIT + 70_000
    assert older.stat().st_size <= LOG_LIMIT + 70_000
    assert "log rotated past 1,000,000 bytes; the earlier part is in mcp-noisy.log.1" \
        in log.read_text()
    # The server still runs and answers after the flood.
    events = await turn(eng, 'call spew {"megabytes": 0}')
    assert of_type(events, "tool_result")[0].content == "spewed 0 MB"


def test_notes_alone_rotate_at_the_cap(tmp_path):
    """The app's own notes count too: past the limit the file moves to `.1` and a fresh one
    says where the earlier part went; the one before that `.1` is dropped."""
    path = tmp_path / "mcp-x.log"
    log = ServerLog(path, limit=1_000)
    for n in range(50):
        log.write(f"note {n:03d} " + "x" * 90 + "\n")
    log.close()
    assert path.stat().st_size <= 1_100 and (tmp_path / "mcp-x.log.1").stat().st_size <= 1_100
    assert "note 049" in path.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mcp-x.log", "mcp-x.log.1"]
