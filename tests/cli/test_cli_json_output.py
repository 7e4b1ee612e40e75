"""`--print --output-format json`: one JSON object on stdout once the turn ends, in the shape
other agent CLIs print; exit statuses unchanged (real subprocesses, the offline model)."""

from __future__ import annotations

import json

import pytest

from .helpers import run_cli, session_json

pytestmark = pytest.mark.integration

KEYS = ["type", "subtype", "is_error", "exit_code", "stop_reason", "result", "error",
        "session_id", "duration_ms", "usage", "total_cost_usd", "tool_calls",
        "pending_approvals", "agents"]


def result_of(proc) -> dict:
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout  # one object, nothing else on stdout
    result = json.loads(lines[0])
    assert list(result) == KEYS
    return result


def test_a_turn_with_a_tool_call_is_one_object(isolated_home, tmp_path, monkeypatch):
    """A finished turn is one object with the reply, session, usage, cost and tool calls, and no
    resume line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("x")
    proc = run_cli(isolated_home, "--output-format", "json", "--print",
                   'call list_files {"path": "."}')
    assert proc.returncode == 0, proc.stderr
    result = result_of(proc)
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["stop_reason"] == "end_turn" and result["exit_code"] == 0
    assert not result["is_error"] and result["error"] is None
    call, = result["tool_calls"]
    assert call["name"] == "list_files" and "a.txt" in call["result"] and call["error"] is False
    saved = session_json(isolated_home, result["session_id"])
    assert result["usage"]["input_tokens"] == saved["input_tokens"]
    assert result["usage"]["model_calls"] == 2
    assert result["total_cost_usd"] == 0.0  # the offline model is free
    assert "`list_files`" in result["result"]
    assert proc.stderr == ""  # no resume line: the object has the session id


def test_a_turn_that_waits_for_approval_says_so_and_exits_4(isolated_home, tmp_path,
                                                             monkeypatch):
    """A turn stopped for approval says so in the object (stop reason, pending calls) and exits 4;
    --approve finishes it."""
    monkeypatch.chdir(tmp_path)
    proc = run_cli(isolated_home, "--output-format", "json", "--print",
                   'call write_file {"path": "n.md", "content": "hi"}')
    assert proc.returncode == 4
    result = result_of(proc)
    assert result["stop_reason"] == "approval_pending" and result["exit_code"] == 4
    pending, = result["pending_approvals"]
    assert pending["name"] == "write_file" and pending["args"]["path"] == "n.md"
    assert "approval needed: write_file" in proc.stderr
    again = run_cli(isolated_home, "--output-format", "json", "--session-id",
                    result["session_id"], "--print", "--approve", "all")
    assert again.returncode == 0, again.stderr
    assert result_of(again)["stop_reason"] == "end_turn"
    assert (tmp_path / "n.md").read_text() == "hi"
