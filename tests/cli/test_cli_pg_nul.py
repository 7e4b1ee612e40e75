"""A NUL character on the shared PostgreSQL database: `cat file | birdie-tui -p` with a NUL in
the file is stored (history, title, session row), read back equal, and listed, as the
embedded store does. Real processes, a real PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from birdie_tui.store.pg.memory import PgMemoryStore
from birdie_tui.store.pg.nul_text import decode, encode
from birdie_tui.store.pg.sessions import PgSessionStore

from ..conftest import clean_env

pytestmark = pytest.mark.integration

TEXT = "ERROR disk full\x00 at block 7 \ufdd0 kept\n"


async def _history(url: str, sid: str) -> list:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    from birdie_tui.agent.graph import build_graph

    async with AsyncPostgresSaver.from_conn_string(url) as saver:
        state = await build_graph(saver).aget_state({"configurable": {"thread_id": sid}})
    return list(state.values.get("messages", []))


def test_piped_nul_is_stored_listed_and_read_back(pg_url, tmp_path):
    """The first message, NUL included, is stored on PostgreSQL: exit 0, the session is
    listed with its title, and the history's user message is the text exactly."""
    env = clean_env(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--database-url", pg_url,
                           "-p", "--output-format", "stream-json"], input=TEXT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    sid = next(json.loads(x)["id"] for x in proc.stdout.splitlines()
               if json.loads(x)["type"] == "session")
    store = PgSessionStore(pg_url, "tester")
    try:
        [summary] = store.summaries()
        meta = store.load(sid)
    finally:
        store.close()
    assert summary.id == sid and summary.title and "\x00" in summary.title
    assert meta is not None and meta.title == summary.title and meta.turns == 1
    [first, *_] = asyncio.run(_history(pg_url, sid))
    assert first.content == TEXT.strip() or first.content == TEXT


def test_memory_note_with_nul_round_trips(pg_url):
    """A memory note holding NUL and U+FDD0 is stored and read back unchanged."""
    memory = PgMemoryStore(pg_url, "tester")
    try:
        memory.add("a\x00b \ufdd0\ufdd0 c")
        assert [e.content for e in memory.entries()] == ["a\x00b \ufdd0\ufdd0 c"]
    finally:
        memory.close()


def test_escape_round_trips_and_leaves_plain_text_alone():
    """encode/decode: plain text unchanged; NUL, U+FDD0 and their mixes come back exactly."""
    for text in ("plain", "", "\x00", "\ufdd0", "\ufdd00", "\x00\ufdd0\x00", "a\ufdd0\x000"):
        assert decode(encode(text)) == text
        assert "\x00" not in encode(text)
    assert encode("plain é") == "plain é"
