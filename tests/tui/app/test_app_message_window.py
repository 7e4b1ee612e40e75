"""The real app refuses a message over the model's context window before sending it. Local door
only: the offline model's window and token count."""

from __future__ import annotations

import pytest

from birdie_tui.tui.widgets.chat.notice import ErrorBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage
from birdie_tui.tui.widgets.composer import Composer

from .conftest import wait_for, wait_ready

pytestmark = pytest.mark.app


async def test_an_oversized_message_stays_in_the_composer_with_a_clear_error(make_app):
    """Submitting ≈75k tokens to the offline model's 32k window sends nothing: no user
    message in the chat, no turn, an error saying size vs window, and the composer keeps
    the whole text (as its paste marker)."""
    app = make_app()
    big = "word " * 60_000
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        composer = app.query_one(Composer)
        composer.load_text(big)
        await pilot.pause()
        composer.action_submit()
        await wait_for(pilot, lambda: bool(app.query(ErrorBlock)))
        error = str(app.query(ErrorBlock).last().message)
        assert "≈75,004 tokens" in error and "32,768-token context window" in error
        assert not app.query(UserMessage) and not app.main.turn_running
        assert composer.full_text.strip() == big.strip()
