"""A session Birdie 0.1.5 itself wrote (its own venv, its own graph) opens over ACP."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.acp.harness import Recorder, agent, prompt
from tests.compat import conftest as compat
from tests.store.test_pg_birdie015 import oracle

pytestmark = [pytest.mark.integration, pytest.mark.slow]

birdie_env = compat.birdie_env  # the real Birdie's venv (a session fixture), by name here


@pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)
async def test_session_load_replays_a_birdie_015_session(birdie_env, tmp_path: Path):
    """`session/load` of Birdie 0.1.5's session replays its turn as user and agent chunks,
    and a prompt continues it."""
    laptop = tmp_path / "laptop"
    shutil.copytree(birdie_env.skills_dir / "todo", tmp_path / "skills" / "todo")
    written = oracle(birdie_env, laptop, "write", "dana", str(tmp_path / "skills"),
                     "hello from birdie")
    sid = written["id"]
    client = Recorder()
    async with agent(laptop / ".birdie", client, "--user", "dana", "--skills-dir",
                     str(tmp_path / "skills"), cwd=tmp_path) as (conn, _):
        await conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert client.text(sid, "user_message_chunk") == "hello from birdie"
        assert client.text(sid) == "Birdie 0.1.5 heard: hello from birdie"
        done = await conn.prompt(session_id=sid, prompt=prompt("and from birdie-tui"))
        assert done.stop_reason == "end_turn"
