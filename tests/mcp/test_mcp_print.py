"""`birdie-tui --print` as a subprocess: a server's stderr goes to its log file, never to the
terminal; a failing server is one warning-free turn without its tools."""

from __future__ import annotations

import json

import pytest

from ..cli.helpers import run_cli
from .conftest import lab_skill, mcp_skill

pytestmark = pytest.mark.integration

NOISE = "LAB-STDERR-NOISE-4711"


def test_server_stderr_goes_to_the_log_not_the_terminal(skills_root, isolated_home):
    """In --print mode an MCP server's stderr goes to its log file, never to the terminal."""
    lab_skill(skills_root, "lab", "--noise", NOISE)
    proc = run_cli(isolated_home, "--skills-dir", str(skills_root),
                   "--print", 'call shout {"text": "quiet please"}')
    assert proc.returncode == 0, proc.stderr
    # stderr holds only our own resume line, nothing from the server
    assert proc.stderr.startswith("Resume this session:") and proc.stderr.count("\n") == 1
    assert NOISE not in proc.stdout and "shouting" not in proc.stdout
    assert "QUIET PLEASE" in proc.stdout
    log = (isolated_home / "logs" / "mcp-lab.log").read_text()
    assert NOISE in log and "shouting quiet please" in log  # start-up and per-call stderr


def test_stream_json_with_a_failing_server_stays_clean(skills_root, isolated_home):
    """With a failing MCP server, stream-json stdout stays pure JSON and stderr stays empty."""
    mcp_skill(skills_root, "ghost", {"command": "birdie-no-such-server-xyz"})
    lab_skill(skills_root, "lab", "--noise", NOISE)
    proc = run_cli(isolated_home, "--skills-dir", str(skills_root), "--output-format",
                   "stream-json", "--print", "call pid")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    events = [json.loads(line) for line in proc.stdout.splitlines()]  # every line is JSON
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["content"].isdigit() and not result["error"]
    assert events[-1]["type"] == "done"
    assert NOISE not in proc.stdout
