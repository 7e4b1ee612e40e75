"""A session run with a (fake) API key on every vendor leaves no trace of the key anywhere under
BIRDIE_HOME: session JSON, checkpoints, memory, logs, or what `sessions export` prints."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.cli import main

from .conftest import SECRET, VENDORS, run

pytestmark = pytest.mark.integration

ECHO = ("call_S1", "echo_text", '{"text": "marker-7731"}')


def files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def test_no_trace_of_the_key_under_birdie_home(server, skills_dir, isolated_home, monkeypatch,
                                               capsys):
    """After turns, errors, --print and exports on every vendor, no file or output has the key."""
    session_ids: list[str] = []

    async def sessions() -> None:
        for vendor in VENDORS.values():
            cut = vendor.reply(["partial ", "reply ", "here"])
            cut.cut_after = 3
            server.script(vendor.reply(["Calling."], [ECHO]), vendor.reply(["Echoed."]),
                          vendor.error(401, f"Incorrect API key provided: {SECRET}"), cut)
            engine = Engine(EngineOptions(skills_dirs=[skills_dir],
                                          provider=vendor.config(server)))
            await engine.start()
            try:
                await engine.open_session()
                session_ids.append(engine.session.id)
                engine.memory.add("remember the marker-7731")
                outcomes = [(await run(engine, text))[-1] for text in ("echo", "again", "more")]
                assert [e.type for e in outcomes] == ["done", "error", "error"]
                assert all(SECRET not in e.message for e in outcomes[1:])
            finally:
                await engine.aclose()

    asyncio.run(sessions())

    # A headless run configured inline, and exports of every session.
    server.script(VENDORS["anthropic"].reply(["printed"]))
    monkeypatch.setenv("LLM_PROVIDER_CONFIG", json.dumps({
        "vendor": "anthropic", "model": "claude-haiku-4-5", "api_key": SECRET,
        "base_url": server.url}))
    assert main(["--print", "hi", "--skills-dir", str(skills_dir)]) == 0
    monkeypatch.delenv("LLM_PROVIDER_CONFIG")
    for sid in session_ids:
        for fmt in ("json", "markdown"):
            assert main(["sessions", "export", sid, "--format", fmt]) == 0
    printed = capsys.readouterr()
    assert SECRET not in printed.out + printed.err
    assert "marker-7731" in printed.out

    files = files_under(isolated_home)
    assert any(path.name == "checkpoints.db" for path in files)
    contents = b"".join(path.read_bytes() for path in files)
    assert b"marker-7731" in contents  # the history is really in what we searched
    assert b"SECRET" not in contents
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path
