"""A real Birdie 0.1.5 session (its keys, its own checkpoints, its memory) moved into the
shared database and back out: Birdie 0.1.5 reads it back unchanged."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from birdie_tui.agent.transfer import export_home, import_home
from birdie_tui.store.pg.memory import PgMemoryStore
from birdie_tui.store.pg.sessions import PgSessionStore

from ..compat import conftest as compat

pytestmark = pytest.mark.integration

birdie_env = compat.birdie_env  # the real Birdie's venv (a session fixture), by name here

ORACLE = Path(__file__).with_name("birdie015_session_oracle.py")


def oracle(env, home: Path, *args: str) -> dict:
    proc = subprocess.run([str(env.python), str(ORACLE), *args], capture_output=True,
                          text=True, timeout=300, cwd=env.venv,
                          env={**compat._venv_env(), "HOME": str(home)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)
def test_a_birdie_015_session_goes_in_and_comes_back_readable(birdie_env, pg_url, tmp_path):
    """Import Birdie's home, export it to a fresh one: Birdie loads the same session, the
    same history and the same memory."""
    laptop, fresh = tmp_path / "laptop", tmp_path / "fresh"
    # Birdie's todo skill alone: its bundled MCP demos need servers this machine has not.
    shutil.copytree(birdie_env.skills_dir / "todo", tmp_path / "skills" / "todo")
    skills = str(tmp_path / "skills")
    written = oracle(birdie_env, laptop, "write", "dana", skills, "hello from birdie")
    sid = written["id"]
    before = oracle(birdie_env, laptop, "read", "dana", sid, skills)
    assert before["messages"][-1] == ["ai", "Birdie 0.1.5 heard: hello from birdie"]

    report = asyncio.run(import_home(laptop / ".birdie", pg_url))
    assert (report.moved, report.problems, report.notes) == ([sid], [], 1)
    row = PgSessionStore(pg_url, "dana").load(sid)
    assert (row.turns, row.enabled_skills, row.user_id) == (1, ["todo"], "dana")
    assert [e.content for e in PgMemoryStore(pg_url, "dana").entries()] == \
        ["prefers short answers"]
    assert asyncio.run(import_home(laptop / ".birdie", pg_url)).moved == []  # idempotent

    out = asyncio.run(export_home(fresh / ".birdie", pg_url, "dana"))
    assert out.moved == [sid]
    file = json.loads((fresh / ".birdie" / "sessions" / "dana" / f"{sid}.json").read_text())
    assert file == written["file"]
    after = oracle(birdie_env, fresh, "read", "dana", sid, skills)
    assert after == before
