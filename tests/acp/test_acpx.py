"""`birdie-tui acp` driven by acpx, a third-party headless ACP client from the npm registry
(`.ci/run` installs it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp.harness import acpx_path, agent_env

pytestmark = pytest.mark.integration


def acpx(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = acpx_path()
    if binary is None:
        pytest.skip("acpx is not installed (npm install acpx; .ci/run does)")
    command = f"{sys.executable} -m birdie_tui.cli acp"
    return subprocess.run([str(binary), "--format", "json", "--cwd", str(cwd), "--agent", command,
                           "--timeout", "120", *args], cwd=cwd, env=agent_env(home),
                          capture_output=True, text=True, timeout=180)


def messages(run: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]


def updates(run: subprocess.CompletedProcess[str], kind: str) -> list[dict]:
    return [m["params"]["update"] for m in messages(run) if m.get("method") == "session/update"
            and m["params"]["update"]["sessionUpdate"] == kind]


def test_acpx_gets_a_streamed_answer(tmp_path: Path):
    """acpx's one-shot prompt: Birdie's reply streams as chunks and the turn ends."""
    run = acpx(tmp_path / "home", tmp_path, "exec", "hello from acpx")
    assert run.returncode == 0, run.stderr[-2000:]
    text = "".join(u["content"]["text"] for u in updates(run, "agent_message_chunk"))
    assert "15 characters" in text or "hello from acpx" in text
    result = [m for m in messages(run) if m.get("result", {}).get("stopReason")]
    assert result[-1]["result"]["stopReason"] == "end_turn"


@pytest.mark.parametrize("policy, written, code", [("--approve-all", True, 0),
                                                   ("--deny-all", False, 5)])
def test_acpx_approves_or_denies_a_file_write(tmp_path: Path, policy: str, written: bool,
                                              code: int):
    """A write asks acpx for permission; approved it runs, denied it does not (acpx exits 5
    when every request was denied)."""
    call = 'call write_file {"path": "from-acpx.txt", "content": "ok"}'
    run = acpx(tmp_path / "home", tmp_path, policy, "exec", call)
    assert run.returncode == code, run.stderr[-2000:]
    asks = [m for m in messages(run) if m.get("method") == "session/request_permission"]
    assert len(asks) == 1 and asks[0]["params"]["toolCall"]["kind"] == "edit"
    assert (tmp_path / "from-acpx.txt").exists() is written
    final = updates(run, "tool_call_update")[-1]
    assert final["status"] == ("completed" if written else "failed")
    # acpx offers its file system: the write went through the client, not around it
    writes = [m for m in messages(run) if m.get("method") == "fs/write_text_file"]
    assert [w["params"]["path"] for w in writes] == \
        ([str(tmp_path / "from-acpx.txt")] if written else [])


def test_acpx_runs_a_bash_tool_in_its_own_terminal(tmp_path: Path):
    """acpx offers terminals: a `bash:` tool runs in one (created, read, released), the
    tool call shows it, and its output is the result."""
    call = 'call run_bash {"command": "echo hi from $((6*7))"}'
    run = acpx(tmp_path / "home", tmp_path, "--approve-all", "exec", call)
    assert run.returncode == 0, run.stderr[-2000:]
    methods = [m.get("method") for m in messages(run)]
    assert {"terminal/create", "terminal/wait_for_exit", "terminal/release"} <= set(methods)
    shown = [c for u in updates(run, "tool_call_update") for c in u.get("content") or []
             if c.get("type") == "terminal"]
    assert shown
    final = updates(run, "tool_call_update")[-1]
    assert final["status"] == "completed" and final["rawOutput"].strip() == "hi from 42"
