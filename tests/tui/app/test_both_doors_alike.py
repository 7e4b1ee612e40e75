"""The same scripted conversation over the local door and the fake one shows the same chat: the
fake is honest enough that a TUI bug shows on both. Replies differ in wording (the offline
model's Markdown, the fake's), so each reply is compared by what it must carry."""

from __future__ import annotations

import pytest

from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage

from .conftest import send, wait_for, wait_ready, wait_turn

pytestmark = pytest.mark.app  # two whole-app runs (CONTRIBUTING.md, Test tiers)


def chat_view(app) -> list[tuple]:
    """The chat as a list of rows a reader sees: messages, tool blocks (name, result, error,
    state), and each reply reduced to the words it quotes back."""
    rows: list[tuple] = []
    for widget in app.query_one("#chat").children:
        if isinstance(widget, UserMessage):
            rows.append(("user", str(widget.render())))
        elif isinstance(widget, ToolBlock):
            state = widget.title_text.split("  ")[-1].split("  ")[0].strip()
            rows.append(("tool", widget.name, widget.content, widget.error,
                         "not run" in state, widget.clock_running))
        elif isinstance(widget, AssistantMessage):
            rows.append(("reply", widget.interrupted,
                         [word for word in ("hello door", "denied", "Reason: no thanks",
                                            "not available") if word in widget.text]))
    return rows


async def converse(pilot, app) -> None:
    """A message, a tool call, a gated call denied with a reason, one allowed, a disabled
    skill's tool."""
    await wait_ready(pilot, app)
    await send(pilot, app, "hello door")
    await wait_turn(pilot, app)
    await send(pilot, app, 'call echo_text {"text": "from the tool"}')
    await wait_turn(pilot, app)
    for answer in (("r", *"no thanks", "enter"), ("y",)):
        await send(pilot, app, 'call touch_file {"path": "made.txt"}')
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(ApprovalScreen.ARM_SECONDS + 0.1)
        await pilot.press(*answer)
        await wait_turn(pilot, app)
    await send(pilot, app, "call hush")
    await wait_turn(pilot, app)


async def test_the_same_conversation_shows_the_same_chat_on_both_doors(make_app, skills_dir,
                                                                        tmp_path, monkeypatch):
    """Messages, tool blocks (result, error, not run), replies and turn counts agree between
    the local door and the fake door for one scripted conversation."""
    from birdie_tui.tui import create_app
    from tests.tui.fake_door import FakeDoor

    monkeypatch.chdir(tmp_path)
    seen = {}
    for kind in ("local", "fake"):
        door = FakeDoor.factory() if kind == "fake" else None
        app = create_app(["--skills-dir", str(skills_dir)], cursor_blink=False,
                         door_factory=door)
        async with app.run_test(size=(120, 40)) as pilot:
            await converse(pilot, app)
            seen[kind] = (chat_view(app), app.birdie.status().turns,
                          [item.role for item in await app.birdie.transcript()])
        (tmp_path / "made.txt").unlink()  # touched once on each door
    assert seen["fake"] == seen["local"]
    view = seen["local"][0]
    assert ("user", "hello door") in view
    assert any(row[:4] == ("tool", "touch_file", "The user denied this tool call. Reason: "
                                                 "no thanks", True) for row in view)
