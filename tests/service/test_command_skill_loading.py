"""`/skill loading`: how knowledge bodies reach the prompt, per session, through the real door
(offline model): shown, set, saved with the session, back to the global value."""

from __future__ import annotations

import pytest

from birdie_tui.service import BirdieError

from .test_command_table import StubUI, run


async def test_skill_loading_is_shown_set_and_saved(birdie):
    """`/skill loading` shows the mode; `triggers` takes get_skill away from the next turn and
    is saved in the session file; `default` goes back to settings.json's value."""
    ui = StubUI(birdie)
    await run(ui, "/skill loading")
    assert "**both**" in ui.said[-1]
    [_ async for _ in birdie.send("hello")]
    await run(ui, "/skill loading triggers")
    assert "**triggers**" in ui.said[-1]
    events = [e async for e in birdie.send("and now?")]
    assert "get_skill" not in events[-1].text
    meta = birdie.engine.sessions.load(birdie.status().session_id)  # read from its file
    assert meta.extra["prompt_settings"] == {"skill_loading": "triggers"}
    await run(ui, "/skill loading default")
    assert birdie.skill_loading() == "both"
    assert "prompt_settings" not in birdie.engine.sessions.load(meta.id).extra


async def test_skill_loading_refuses_an_unknown_mode(birdie):
    """A mode that is not triggers, model, both or default is a usage hint; the door refuses
    it too."""
    ui = StubUI(birdie)
    await run(ui, "/skill loading sometimes")
    assert ui.toasts[-1] == ("warning", "usage: /skill loading [triggers|model|both|default]")
    assert birdie.skill_loading() == "both"
    with pytest.raises(BirdieError, match="unknown loading mode"):
        birdie.set_skill_loading("sometimes")
