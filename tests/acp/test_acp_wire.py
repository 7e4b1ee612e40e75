"""`birdie-tui acp` on the raw wire: bad bytes get JSON-RPC's errors, stdout carries nothing
but the protocol, and a client that disappears mid-turn leaves a valid session behind."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.acp.harness import agent_env

pytestmark = pytest.mark.integration


class Wire:
    def __init__(self, home: Path, cwd: Path, **env: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "birdie_tui.cli", "acp"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd,
            env=agent_env(home, **env))
        self.seen: list[dict] = []

    def send(self, raw: str | dict) -> None:
        line = raw if isinstance(raw, str) else json.dumps(raw)
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def until(self, predicate, timeout: float = 60.0) -> dict:
        """The first message (every stdout line must be JSON) that `predicate` accepts."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            assert line, "the agent closed its output"
            message = json.loads(line)  # nothing but JSON-RPC on stdout
            self.seen.append(message)
            if predicate(message):
                return message
        raise AssertionError("no such message in time")

    def reply(self, request_id: int) -> dict:
        return self.until(lambda m: m.get("id") == request_id and "method" not in m)


def request(request_id: int, method: str, **params) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def test_bad_messages_get_the_protocols_errors(tmp_path: Path):
    """Not JSON: -32700; not an object: -32600; an unknown method: -32601; bad params:
    -32602 — and the agent goes on answering."""
    wire = Wire(tmp_path / "home", tmp_path)
    try:
        wire.send("{this is not json")
        assert wire.until(lambda m: "error" in m)["error"]["code"] == -32700
        wire.send("[1, 2, 3]")
        assert wire.until(lambda m: "error" in m)["error"]["code"] == -32600
        wire.send(request(1, "initialize", protocolVersion=1))
        assert wire.reply(1)["result"]["protocolVersion"] == 1
        wire.send(request(2, "session/teleport", where="mars"))
        assert wire.reply(2)["error"]["code"] == -32601
        wire.send(request(3, "session/new", cwd="relative/dir", mcpServers=[]))
        assert wire.reply(3)["error"]["code"] == -32602
        wire.send(request(4, "session/prompt", sessionId=5, prompt="hi"))
        assert wire.reply(4)["error"]["code"] == -32602
        wire.send(request(5, "session/new", cwd=str(tmp_path), mcpServers=[]))
        assert wire.reply(5)["result"]["sessionId"]
    finally:
        wire.proc.kill()
        wire.proc.wait()


def test_a_client_that_dies_mid_turn_leaves_a_valid_session(tmp_path: Path):
    """stdin closed while a reply streams: the turn is cancelled, the process exits 0, and
    the session opens again with the user's message kept and a usable history."""
    home = tmp_path / "home"
    wire = Wire(home, tmp_path, BIRDIE_OFFLINE_TPS="15")
    wire.send(request(1, "initialize", protocolVersion=1))
    wire.reply(1)
    wire.send(request(2, "session/new", cwd=str(tmp_path), mcpServers=[]))
    sid = wire.reply(2)["result"]["sessionId"]
    wire.send(request(3, "session/prompt", sessionId=sid,
                      prompt=[{"type": "text", "text": "a long story please"}]))
    wire.until(lambda m: m.get("method") == "session/update"
               and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
    assert wire.proc.stdin is not None
    wire.proc.stdin.close()
    assert wire.proc.wait(timeout=60) == 0

    again = Wire(home, tmp_path)
    try:
        again.send(request(1, "initialize", protocolVersion=1))
        again.reply(1)
        again.send(request(2, "session/load", sessionId=sid, cwd=str(tmp_path), mcpServers=[]))
        assert "result" in again.reply(2)
        users = [m for m in again.seen if m.get("method") == "session/update"
                 and m["params"]["update"]["sessionUpdate"] == "user_message_chunk"]
        assert users[0]["params"]["update"]["content"]["text"] == "a long story please"
        again.send(request(3, "session/prompt", sessionId=sid,
                           prompt=[{"type": "text", "text": "go on"}]))
        assert again.reply(3)["result"]["stopReason"] == "end_turn"
    finally:
        again.proc.kill()
        again.proc.wait()
