"""The one Textual message from the engine to the UI (docs/architecture.md, Events in the TUI).

The vocabulary is defined once, in `birdie_tui.events` (stream-json is its serialised form).
The turn worker and the front door's listener wrap each event as it arrives in an
`EngineEvent` for the main screen, which dispatches with `match` on the event's class
(`MainScreen.on_engine_event`, `TurnView.handle`), so no second hierarchy can drift from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from birdie_tui.events import Event


class EngineEvent(Message, bubble=False):  # for the main screen only; nobody above needs it
    """One engine event, unchanged (`event.type` names it: "token", "tool_call", …)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event

    @property
    def type(self) -> str:
        return str(self.event.type)

    def __repr__(self) -> str:
        return f"EngineEvent({self.event!r})"
