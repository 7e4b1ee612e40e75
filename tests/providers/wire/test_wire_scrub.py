"""Secrets stay out of the output: an OpenAI-compatible endpoint configured as
`http://user:pass@host/v1`, with an API key, answers 500 / 401 bodies that echo the key and the Authorization header it received, and a
tool prints `$OPENAI_API_KEY` on stderr. Neither the key, nor the password, nor the Basic value
built from them reaches stdout/stderr of a real `birdie-tui --print`, the TUI's screen, or any
file under BIRDIE_HOME (session JSON, checkpoints.db, logs) or a `sessions export`."""

from __future__ import annotations

import base64
import html
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from birdie_tui.tui.widgets.chat.notice import ErrorBlock
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from tests.cli.helpers import USER, events_of, run_cli
from tests.tui.app.conftest import send, wait_for, wait_ready, wait_turn

from .conftest import FAST, VENDORS
from .loopback import LoopbackServer, Reply
from .test_wire_tui import app_with, notices, status_text

pytestmark = pytest.mark.integration

KEY = "sk-test-SECRETkey-7f3a9c2e51"
PASSWORD = "s3cretpass"
BASIC = base64.b64encode(f"user:{PASSWORD}".encode()).decode()  # what httpx sends for it
SECRETS = (KEY, PASSWORD, BASIC)
OPENAI = VENDORS["openai"]
LEAKY = """\
---
name: Leaky
description: A tool that prints the API key on stderr.
env: [OPENAI_API_KEY]  # passed through on purpose: what a tool prints is still scrubbed
---

## Tools

### leak_key
description: Fails, printing the key.
entrypoint: bash:echo $OPENAI_API_KEY >&2; exit 1
schema:
  type: object
  properties: {}
"""


class EchoServer(LoopbackServer):
    """Its error bodies echo what the request carried: `{auth}` becomes the Authorization
    header the client really sent, `{url}` the credentialed base URL."""

    cred_url = ""

    def _send(self, handler: Any, reply: Reply) -> None:  # type: ignore[override]
        if reply.body is not None:
            auth = handler.headers.get("Authorization") or ""
            body = json.dumps(reply.body).replace("{auth}", auth).replace("{url}", self.cred_url)
            reply = Reply.error(reply.status, json.loads(body), **reply.headers)
        LoopbackServer._send(handler, reply)


@pytest.fixture
def echo_server():
    srv = EchoServer().start()
    srv.cred_url = srv.url.replace("http://", f"http://user:{PASSWORD}@") + "/v1"
    yield srv
    srv.stop()


@pytest.fixture
def leaky_skills(tmp_path) -> Path:
    root = tmp_path / "leaky-skills"
    (root / "leaky").mkdir(parents=True)
    (root / "leaky" / "SKILL.MD").write_text(LEAKY)
    return root


def echoing_error(status: int) -> Reply:
    """The vendor's error: the key, the Authorization header received and the URL, echoed."""
    return OPENAI.error(status, f"Incorrect API key provided: {KEY}; got Authorization: "
                                "{auth} (Bearer " + KEY + ") for {url}", **FAST)


def tool_then_answer() -> list[Reply]:
    return [OPENAI.reply(["Checking."], [("call_K1", "leak_key", "{}")]),
            OPENAI.reply(["The tool failed."])]


def assert_clean(where: str, text: str | bytes) -> None:
    data = text.encode() if isinstance(text, str) else text
    for secret in SECRETS:
        assert secret.encode() not in data, f"{secret!r} found in {where}"


def assert_home_clean(home: Path) -> list[Path]:
    """No secret in any file under `home`; returns the files (for positive checks)."""
    files = [path for path in home.rglob("*") if path.is_file()]
    for path in files:
        assert_clean(str(path), path.read_bytes())
    return files


def stored_errors(home: Path) -> list[str]:
    """The node errors LangGraph kept in the checkpoint's pending writes."""
    with sqlite3.connect(next(home.rglob("checkpoints.db"))) as conn:
        rows = conn.execute("SELECT value FROM writes WHERE channel = '__error__'").fetchall()
    return [bytes(row[0]).decode("utf-8", "replace") for row in rows]


def export_all(home: Path) -> str:
    """`sessions export` of every session, in both formats, for the real command line."""
    out = []
    for path in sorted((home / "sessions" / USER).glob("*.json")):
        for fmt in ("json", "markdown"):
            proc = run_cli(home, "sessions", "export", path.stem, "--format", fmt)
            assert proc.returncode == 0, proc.stderr
            out.append(proc.stdout + proc.stderr)
    return "\n".join(out)


def test_print_stream_json_leaks_no_secret(echo_server, leaky_skills, isolated_home):
    """A real `birdie-tui --print` (stream-json, then text): the tool's stderr, the 500 body
    and the 401 body are scrubbed on stdout/stderr, in the checkpoint's stored error, the
    session files and every export."""
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": echo_server.cred_url}
    skills = ("--skills-dir", str(leaky_skills))
    echo_server.script(*tool_then_answer())
    first = run_cli(isolated_home, "--print", "use the tool", "--output-format", "stream-json",
                    *skills, env=env)
    assert first.returncode == 0, first.stderr
    result = next(e for e in events_of(first) if e["type"] == "tool_result")
    assert result["name"] == "leak_key" and "***" in json.dumps(result)

    echo_server.script(*[echoing_error(500)] * 3)
    second = run_cli(isolated_home, "--print", "again", "-c", "--output-format", "stream-json",
                     *skills, env=env)
    error = events_of(second)[-1]
    assert second.returncode == 1 and error["type"] == "error"
    assert error["message"].startswith("openai: server error (500): Incorrect API key")
    echo_server.script(echoing_error(401))
    third = run_cli(isolated_home, "--print", "once more", "-c", *skills, env=env)
    assert third.returncode == 1 and "authentication failed (401)" in third.stderr

    # The key and the password were really there to leak.
    assert echo_server.requests[-1].headers["authorization"] == f"Basic {BASIC}"
    for proc in (first, second, third):
        assert_clean("stdout/stderr of --print", proc.stdout + proc.stderr)
    # A node's error kept in the checkpoint (until pruning drops the step) is the scrubbed one;
    # `assert_home_clean` below checks every byte of the database too.
    for error in stored_errors(isolated_home):
        assert "Incorrect API key provided: ***" in error
    assert_clean("sessions export", export_all(isolated_home))
    files = assert_home_clean(isolated_home)
    assert any(path.name == "checkpoints.db" for path in files)


def screen_text(app) -> str:
    """What the terminal shows (the screenshot's text) plus every chat widget's full text."""
    svg = app.export_screenshot()
    shown = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
    parts = [shown, status_text(app), notices(app)]
    parts += [block.message for block in app.query(ErrorBlock)]
    parts += [f"{b.name} {b.args} {b.content}" for b in app.query(ToolBlock)]
    return "\n".join(parts)


async def test_tui_turns_leak_no_secret(echo_server, leaky_skills, isolated_home, monkeypatch,
                                        capsys):
    """A TUI session under Pilot (a tool printing the key, a 500 echoing it, /info, /model):
    the screen, the status bar, stdout/stderr and every file under BIRDIE_HOME are clean."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the tool's bash sees this process's env
    monkeypatch.setenv("OPENAI_BASE_URL", echo_server.cred_url)
    app = app_with(leaky_skills, OPENAI_API_KEY=KEY, OPENAI_BASE_URL=echo_server.cred_url)
    echo_server.script(*tool_then_answer(), *[echoing_error(500)] * 3)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert "openai · gpt-4o-mini" in status_text(app)
        await send(pilot, app, "use the tool")
        await wait_turn(pilot, app)
        block = app.query_one(ToolBlock)
        assert block.error and "***" in (block.content or "")
        await send(pilot, app, "again")
        await wait_turn(pilot, app)
        await wait_for(pilot, lambda: len(app.query(ErrorBlock)) == 1)
        assert "server error (500): Incorrect API key provided: ***" in \
            app.query_one(ErrorBlock).message
        for command in ("/info", "/model"):
            await send(pilot, app, command)
            await pilot.pause()
        await wait_for(pilot, lambda: "**openai** (current)" in notices(app))
        shown = screen_text(app)
        assert "server error (500)" in shown and "leak_key" in shown
        assert_clean("the screen", shown)
    printed = capsys.readouterr()
    assert_clean("stdout/stderr of the TUI", printed.out + printed.err)
    for error in stored_errors(isolated_home):
        assert "Incorrect API key provided: ***" in error
    assert_clean("sessions export", export_all(isolated_home))
    assert_home_clean(isolated_home)


def test_unscrubbed_text_would_be_caught():
    """The checks above can fail: raw secrets in a file or on screen are found."""
    with pytest.raises(AssertionError):
        assert_clean("a sample", f"Authorization: Basic {BASIC}")
