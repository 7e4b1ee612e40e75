"""Key events for tests that must not go through Pilot's `press`, which waits for each key to
be handled: type-ahead stamped before a dialog showed, and real bursts of keys."""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.keys import _character_to_key


def key_events(*keys: str) -> list[events.Key]:
    """Key events stamped now, to be delivered later (keys typed before a dialog showed)."""
    return [events.Key(key, key if len(key) == 1 else None) for key in keys]


async def deliver(pilot, app: App, keys: list[events.Key]) -> None:
    """Hand already-made key events to the app, then let them be handled."""
    for event in keys:
        app.post_message(event)
    await pilot.pause()


def burst(app: App, *keys: str) -> None:
    """Post keys the way a fast terminal delivers them: all at once, no waiting in between
    (Pilot's `press` waits for each key to be handled, which hides ordering bugs)."""
    for key in keys:
        char = key if len(key) == 1 else None
        event = events.Key(_character_to_key(key) if char else key, char)
        event.set_sender(app)
        app._driver.send_message(event)  # what the terminal driver does for each key read
