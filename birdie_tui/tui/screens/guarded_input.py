"""An Input for a `GuardedModal`: it drops type-ahead before inserting it.

An Input inserts printable keys itself, before the screen's guard sees them, so it asks the
guard first. Anywhere else it behaves exactly like Textual's Input.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from birdie_tui.tui.screens.dialog import GuardedModal


class GuardedInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        screen = self.screen
        if isinstance(screen, GuardedModal) and screen.is_stale(event):
            # prevent_default skips Input._on_key (next in the MRO); stop skips the bindings.
            event.prevent_default()
            event.stop()
