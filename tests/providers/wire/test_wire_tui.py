"""The real app under Pilot with real providers on the loopback server: `/model` switching (status
bar follows), `/retry` after a provider error, and a missing key at start."""

from __future__ import annotations

import json
import os

import pytest
from textual.widgets import Markdown

from birdie_tui.tui import create_app
from birdie_tui.tui.palette import BirdieCommands
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.notice import ErrorBlock
from tests.tui.app.conftest import send, wait_for, wait_ready, wait_turn

from .conftest import FAST, SECRET, VENDORS

pytestmark = pytest.mark.integration

SIZE = (120, 40)


def app_with(skills_dir, **env: str):
    environ = {k: v for k, v in os.environ.items()}
    environ.update(env)
    return create_app(["--skills-dir", str(skills_dir)], environ=environ, cursor_blink=False)


def status_text(app) -> str:
    return str(app.query_one("#status").render())


def notices(app) -> str:
    return "\n".join(str(getattr(w, "source", "") or getattr(w, "_markdown", ""))
                     for w in app.query(Markdown).filter(".notice"))


async def test_model_command_lists_and_switches(server, skills_dir):
    """The /model command lists keyed vendors and switches; a vendor without a key is refused."""
    app = app_with(skills_dir, LLM_VENDOR="offline", OPENAI_API_KEY=SECRET,
                   OPENAI_BASE_URL=f"{server.url}/v1")
    server.script(VENDORS["openai"].reply(["Hi ", "from ", "the wire"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot, app)
        assert "offline model" in status_text(app)
        await send(pilot, app, "/model")
        await wait_for(pilot, lambda: "**openai**" in notices(app))
        assert "**offline** (current)" in notices(app) and "`gpt-4o-mini`" in notices(app)
        assert "mistral" not in notices(app)  # no key for it

        palette = [text for text, _, _ in BirdieCommands(app.main)._commands()]
        assert "Model: openai/gpt-4o" in palette and "Model: offline/birdie-offline" in palette

        await send(pilot, app, "/model openai/gpt-4o")
        await wait_for(pilot, lambda: "openai · gpt-4o" in status_text(app))
        assert "Now using **openai · gpt-4o**" in notices(app)
        assert app.birdie.engine.context_window == 128_000

        await send(pilot, app, "hello")
        await wait_turn(pilot, app)
        assert list(app.query(AssistantMessage))[-1].text == "Hi from the wire"
        assert server.requests[-1].body["model"] == "gpt-4o"

        await send(pilot, app, "/model mistral")  # no MISTRAL_API_KEY: a line, no switch
        await wait_for(pilot, lambda: len(app.query(ErrorBlock)) == 1)
        assert app.query_one(ErrorBlock).message == (
            "/model: cannot switch to mistral: MISTRAL_API_KEY is not set")
        assert "openai · gpt-4o" in status_text(app)

        await send(pilot, app, "/model offline")
        await wait_for(pilot, lambda: "offline model" in status_text(app))


async def test_retry_after_a_server_error(server, skills_dir):
    """After a server error, /retry in the TUI reruns the turn and counts it once."""
    vendor = VENDORS["anthropic"]
    server.script(*[vendor.error(500, "boom", **FAST)] * 3, vendor.reply(["second ", "time"]))
    app = app_with(skills_dir, LLM_PROVIDER_CONFIG=json.dumps({
        "vendor": "anthropic", "model": "claude-haiku-4-5", "api_key": SECRET,
        "base_url": server.url}))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot, app)
        assert "anthropic · claude-haiku-4-5" in status_text(app)
        await send(pilot, app, "the question")
        await wait_turn(pilot, app)
        assert app.query_one(ErrorBlock).message.startswith("anthropic: server error (500): boom")
        await send(pilot, app, "/retry")
        await wait_for(pilot, lambda: any(m.text == "second time"
                                          for m in app.query(AssistantMessage)))
        await wait_turn(pilot, app)
        history = await app.birdie.engine.messages()
        assert [m.content for m in history] == ["the question", "second time"]
        assert app.birdie.engine.session.turns == 1


async def test_missing_key_at_start_is_one_line_and_runs_offline(skills_dir):
    """A missing key at TUI start shows one line and falls back to the offline model."""
    app = app_with(skills_dir, LLM_VENDOR="mistral")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot, app)
        assert app.query_one(ErrorBlock).message == (
            "LLM_VENDOR=mistral but MISTRAL_API_KEY is not set — using the offline model "
            "instead.")
        assert "offline model" in status_text(app)
