"""Produce the README's screenshots from the real app (offline model, a throwaway BIRDIE_HOME).

    python screenshots/make_screenshots.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOME = Path(tempfile.mkdtemp(prefix="birdie-shots-"))
os.environ["BIRDIE_HOME"] = str(HOME)
for key in ("LLM_VENDOR", "LLM_PROVIDER_CONFIG", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
            "MISTRAL_API_KEY", "GEMINI_API_KEY", "BIRDIE_SKILLS_DIR", "BIRDIE_OFFLINE_TPS"):
    os.environ.pop(key, None)
os.environ["USER"] = "demo"

from birdie_tui.tui import create_app  # noqa: E402

SID = "2026-11-22_1"


def seed_sessions() -> None:
    folder = HOME / "sessions" / "demo"
    folder.mkdir(parents=True)
    rows = [("2026-11-21_1", "refactor the parser", 6, (18400, 2900), "2026-11-21T16:40:00+00:00"),
            ("2026-11-21_2", "why is CI red?", 3, (7600, 1200), "2026-11-21T18:02:00+00:00"),
            (SID, None, 0, (0, 0), "2026-11-22T09:00:00+00:00")]
    for sid, title, turns, (tin, tout), stamp in rows:
        (folder / f"{sid}.json").write_text(json.dumps({
            "id": sid, "user_id": "demo", "created_at": stamp, "updated_at": stamp,
            "turns": turns, "enabled_skills": [], "disabled_skills": [], "title": title,
            "input_tokens": tin, "output_tokens": tout, "token_log": []}))


async def wait(pilot, predicate, timeout=20.0):
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await pilot.pause(0.05)
    raise SystemExit("timed out waiting for the app")


async def send(pilot, app, text):
    composer = app.query_one("#composer")
    composer.load_text(text)
    composer.focus()
    await pilot.press("enter")
    await pilot.pause(0.1)
    await wait(pilot, lambda: not app.main.turn_running)
    await pilot.pause(0.3)


async def shoot() -> None:
    app = create_app(["--session-id", SID], cursor_blink=False)
    async with app.run_test(size=(150, 40)) as pilot:
        await wait(pilot, lambda: app.birdie is not None and app.ready.is_set())
        await send(pilot, app, "How do I copy my key to a remote server over ssh?")
        app.save_screenshot(str(HERE / "main.svg"))
        await send(pilot, app, 'call list_files {"path": "skills"}')
        blocks = list(app.query("ToolBlock"))
        blocks[-1].toggle()
        await pilot.pause(0.3)
        app.save_screenshot(str(HERE / "tool-call.svg"))
        app.query_one("#panels").active = "tab-tokens"
        await pilot.pause(0.3)
        app.save_screenshot(str(HERE / "tokens.svg"))
        await pilot.press("ctrl+s")
        await wait(pilot, lambda: app.screen.__class__.__name__ == "SessionBrowser")
        await pilot.pause(0.3)
        app.save_screenshot(str(HERE / "sessions.svg"))
        await pilot.press("escape")
        await pilot.pause(0.2)
        app.theme = "birdie-light"
        await pilot.pause(0.3)
        app.save_screenshot(str(HERE / "light.svg"))
    narrow = create_app(["--session-id", SID], cursor_blink=False)
    async with narrow.run_test(size=(80, 24)) as pilot:
        await wait(pilot, lambda: narrow.birdie is not None and narrow.ready.is_set())
        await pilot.pause(0.5)
        narrow.save_screenshot(str(HERE / "narrow-80x24.svg"))


if __name__ == "__main__":
    seed_sessions()
    asyncio.run(shoot())
    print(f"screenshots written to {HERE}", file=sys.stderr)
