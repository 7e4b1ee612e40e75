"""The real app headless, streaming the loopback server's long reply: the parent and child
halves that frame_cost.py, paint_cost.py and frame_sources.py measure from.

The parent runs `sse_server.py` (10,000 tokens of Markdown at `tps`) and the bench's own file
again as a child with the variables `peers.py` gives birdie-tui, then reads the child's last
`RESULT <json>` line. The child boots `create_app` under `App.run_test(size=(120, 40))`, sends
the prompt, and returns once the first token is `skip` seconds old.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import sse_server

PROMPT = "Please write the bird survey report"
PROMPT_WORD = "survey"
_KEYS = ("ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "GEMINI_API_KEY", "LLM_PROVIDER_CONFIG",
         "BIRDIE_OFFLINE_TPS")


def run_child(script: str, args: list[str], *, tps: float, prefix: str) -> dict[str, Any]:
    """Serve the reply, run `script --child *args`, and return the child's RESULT object."""
    srv = sse_server.SSEServer(tps=tps, tokens=10_000, prompt_word=PROMPT_WORD,
                               long_once=True).start()
    try:
        with tempfile.TemporaryDirectory(prefix=prefix) as home:
            env = {**os.environ, "BIRDIE_HOME": home,
                   "OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": srv.base_url,
                   "LLM_VENDOR": "openai", "LLM_MODEL": "gpt-4o-mini", "BIRDIE_WATCH": "0"}
            for key in _KEYS:
                env.pop(key, None)
            out = subprocess.run([sys.executable, script, "--child", *args], capture_output=True,
                                 text=True, env=env, timeout=600)
    finally:
        srv.stop()
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"child failed (rc {out.returncode}):\n{out.stdout[-3000:]}\n"
                         f"{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
    return result


class FirstToken:
    """A `message_hook` for `run_test` that notes when the first token reached the app."""

    def __init__(self) -> None:
        self.at: float | None = None

    def __call__(self, message: object) -> None:
        from birdie_tui.tui.messages import EngineEvent

        if self.at is None and isinstance(message, EngineEvent) and message.type == "token":
            self.at = time.perf_counter()


async def wait_ready(app: Any, timeout: float = 120.0) -> None:
    """Until the engine has booted."""
    deadline = time.perf_counter() + timeout
    while not (app.birdie is not None and app.ready.is_set()):
        if time.perf_counter() > deadline:
            raise SystemExit("engine did not become ready")
        await asyncio.sleep(0.05)


async def send_prompt(app: Any, pilot: Any, first: FirstToken, skip: float) -> None:
    """Send the prompt and wait until the reply has streamed `skip` seconds."""
    composer = app.query_one("#composer")
    composer.load_text(PROMPT)
    composer.focus()
    await pilot.press("enter")
    while first.at is None:
        await asyncio.sleep(0.01)
    await asyncio.sleep(max(0.0, first.at + skip - time.perf_counter()))
