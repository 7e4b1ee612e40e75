"""`#context` in the real app: the provenance of each turn's model calls (stepping back through
turns, what entered since the call before), /compact and /compact auto, and the same records
after a restart. Offline model, a temp BIRDIE_HOME, the test skills (ssh has the trigger "ssh").
Local door only: the engine's own prompt segments, compaction and stored records."""

from __future__ import annotations

import pytest

from birdie_tui.events import Compacted
from birdie_tui.tui.messages import EngineEvent
from birdie_tui.tui.widgets.chat.notice import ErrorBlock, Notice
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

from .conftest import send, wait_for, wait_ready, wait_turn

pytestmark = pytest.mark.app

WIDE = (150, 40)  # the context panel is shown without forcing it


def panel_text(app) -> dict[str, object]:
    """What the panel shows, as text: header, rows, change lines, evictions."""
    panel = app.query_one(ContextPanel)
    return {
        "header": str(panel.query_one(".context--summary").render()),
        "rows": [str(o.prompt) for o in panel.query_one(".context--list").options],
        "changes": str(panel.query_one(".context--changes").render()),
        "left": str(panel.query_one(".context--left").render()),
    }


async def turn(pilot, app, text: str) -> None:
    await send(pilot, app, text)
    await wait_turn(pilot, app)


async def saved_records(pilot, app, count: int) -> None:
    """Wait until the panel holds `count` calls (live `injected` events; the door's copy after
    a session is shown)."""
    panel = app.query_one(ContextPanel)
    await wait_for(pilot, lambda: len(panel.calls.records) == count)


async def test_two_turns_then_step_back_to_the_first(make_app):
    """After two turns the panel shows turn 2's segments in prompt order, with the trigger skill
    the second message brought listed as entered; ← (with the panel focused by ctrl+g) shows
    turn 1, which had no trigger; → comes back."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        await turn(pilot, app, "hello there")
        await turn(pilot, app, "how do I use ssh keys?")
        await saved_records(pilot, app, 2)
        shown = panel_text(app)
        assert shown["header"].startswith("Turn 2 · call 1 of 1 · ≈")
        kinds = [r.split("≈", 1)[1].split(" ", 1)[1] for r in shown["rows"]]  # after ≈tokens
        assert kinds[:3] == ["tool schemas", "base prompt", "skill catalog · 5 skills"]
        assert any(r.startswith("◇") and "ssh · trigger “ssh”" in r for r in shown["rows"])
        assert all(r.startswith("◆") for r in shown["rows"][:3])  # the stable prefix
        assert shown["rows"][-1].startswith("◇") and "history" in shown["rows"][-1]
        assert "+ ssh · trigger “ssh”" in shown["changes"]
        assert "prompt cache prefix unchanged" in shown["changes"]
        assert "not loaded: helper" in shown["left"]

        await pilot.press("ctrl+g")
        panel = app.query_one(ContextPanel)
        assert panel.query_one(".context--list").has_focus
        await pilot.press("left")
        back = panel_text(app)
        assert back["header"].startswith("Turn 1 · call 1 of 1")
        assert not any("trigger" in r for r in back["rows"])
        assert "First call of the session" in back["changes"]
        assert "not loaded: ssh, helper" in back["left"]
        await pilot.press("right")
        assert panel_text(app)["header"].startswith("Turn 2 ·")


async def test_a_new_call_does_not_pull_the_view_from_an_older_turn(make_app):
    """Browsing turn 1 while turn 3 runs keeps turn 1 on screen; from the latest turn the view
    follows the new call."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        await turn(pilot, app, "one")
        await turn(pilot, app, "two")
        await saved_records(pilot, app, 2)
        panel = app.query_one(ContextPanel)
        await pilot.press("ctrl+g", "left")
        assert panel.record.turn == 1
        await turn(pilot, app, "three")
        await saved_records(pilot, app, 3)
        assert panel.record.turn == 1 and panel_text(app)["header"].startswith("Turn 1 ·")
        panel.query_one(".context--list").focus()
        await pilot.press("right", "right")
        assert panel.record.turn == 3
        await turn(pilot, app, "four")
        assert panel.record.turn == 4


async def test_compact_after_five_turns_then_the_next_call_carries_the_summary(make_app):
    """/compact after five turns says what it did in the chat; the next call's segments include
    the summary."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        for n in range(5):
            await turn(pilot, app, f"question number {n}")
        await send(pilot, app, "/compact keep the numbers")
        await wait_for(pilot, lambda: any("Compacted" in n.text for n in app.query(Notice)))
        notice = next(n.text for n in app.query(Notice) if "Compacted" in n.text)
        assert notice.startswith("Compacted 4 messages into a summary: context ≈")
        assert "The messages stay in the chat; the model now sees the summary." in notice
        assert not any("summary" in r for r in panel_text(app)["rows"])  # not sent yet
        await turn(pilot, app, "and now?")
        rows = panel_text(app)["rows"]
        assert any(r.startswith("◇") and " summary" in r for r in rows)
        assert "+ summary" in panel_text(app)["changes"]
        assert not app.query(ErrorBlock)


async def test_compact_with_too_few_turns_is_a_chat_error(make_app):
    """Two turns are not enough to compact: /compact shows the door's sentence as an error."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        await turn(pilot, app, "one")
        await turn(pilot, app, "two")
        await send(pilot, app, "/compact")
        await wait_for(pilot, lambda: bool(app.query(ErrorBlock)))
        message = app.query_one(ErrorBlock).message
        assert message.startswith("/compact: Nothing to compact yet")
        assert not any("Compacted" in n.text for n in app.query(Notice))


async def test_automatic_compaction_is_told_in_the_chat(make_app):
    """With /compact auto 1 the fifth turn starts with a compaction, told in the chat with the
    threshold; a failed automatic one is an error block."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        await turn(pilot, app, "first")
        await send(pilot, app, "/compact auto 1")
        await wait_for(pilot, lambda: app.birdie.auto_compact_percent() == 1)
        for n in range(4):
            await turn(pilot, app, f"more {n}")
        await wait_for(pilot, lambda: any("Context reached 1 % of the window: compacted"
                                          in n.text for n in app.query(Notice)))
        app.main.post_message(EngineEvent(Compacted(auto=True, error="model unavailable")))
        await wait_for(pilot, lambda: bool(app.query(ErrorBlock)))
        assert "Automatic compaction failed: model unavailable" in \
            app.query_one(ErrorBlock).message


async def test_a_restart_shows_the_same_provenance(make_app):
    """A new app on the same BIRDIE_HOME and session id shows turn 1 exactly as before."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        await turn(pilot, app, "hello")
        await turn(pilot, app, "ssh please")
        await saved_records(pilot, app, 2)
        session_id = app.birdie.status().session_id
        latest_before = panel_text(app)
        await pilot.press("ctrl+g", "left")
        turn_one_before = panel_text(app)
    again = make_app("--session-id", session_id)
    async with again.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, again)
        await wait_for(pilot, lambda: len(again.query_one(ContextPanel).calls.records) == 2)
        await pilot.pause()
        assert panel_text(again) == latest_before
        await pilot.press("ctrl+g", "left")
        assert panel_text(again) == turn_one_before
