"""Run the real `birdie-tui` command line in a subprocess, against an isolated BIRDIE_HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ..conftest import clean_env

USER = "tester"


def run_cli(home: Path, *args: str, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full_env = clean_env(home)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "birdie_tui.cli", *args], env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def events_of(proc: subprocess.CompletedProcess[str]) -> list[dict]:
    """Every stdout line parsed as JSON (fails the test on a non-JSON line)."""
    lines = proc.stdout.splitlines()
    assert lines, f"no output; stderr: {proc.stderr}"
    return [json.loads(line) for line in lines]


def assert_one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("birdie-tui: ")
    return lines[0]


def session_json(home: Path, session_id: str) -> dict:
    return json.loads((home / "sessions" / USER / f"{session_id}.json").read_text())


async def raw_history(home: Path, session_id: str) -> list:
    """The session's history exactly as the checkpoint holds it: no engine, no repair."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from birdie_tui.agent.graph import build_graph

    conn = await aiosqlite.connect(str(home / "sessions" / USER / "checkpoints.db"))
    try:
        state = await build_graph(AsyncSqliteSaver(conn)).aget_state(
            {"configurable": {"thread_id": session_id}})
    finally:
        await conn.close()
    return list(state.values.get("messages", [])) if state.values else []
