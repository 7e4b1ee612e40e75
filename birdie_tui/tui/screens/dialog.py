"""What the small modal dialogs share: keys typed before a dialog was shown never answer it.

A dialog can pop up while the user is typing (an approval arrives mid-sentence, a delete is
confirmed right after ctrl+d). Every key event carries the time Textual read it from the
terminal (`events.Key.time`), so a dialog drops any key stamped before it became the active
screen: type-ahead lands nowhere instead of pressing a button.
"""

from __future__ import annotations

from typing import TypeVar

from textual import _time, events
from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")


class GuardedModal(ModalScreen[ResultType]):
    """A modal screen that ignores keys stamped before it was shown.

    The guard runs in `on_key`, which sees a key after the focused widget (Buttons, scroll
    containers: they act on keys only through bindings) and before any binding. Widgets that
    consume keys themselves (an `Input` inserts printable ones) ask `is_stale` first; see
    `GuardedInput`. A subclass that defines its own `on_key` must call `is_stale` first too.
    """

    # None until the screen is active: a key that reaches it earlier is type-ahead by definition.
    _shown_at: float | None = None

    @property
    def shown_at(self) -> float | None:
        """When this dialog last became the active screen (the clock of `events.Key.time`)."""
        return self._shown_at

    def is_stale(self, event: events.Key) -> bool:
        """True for a key the user pressed before this dialog was on screen."""
        return self._shown_at is None or event.time < self._shown_at

    def on_screen_resume(self) -> None:
        # Same clock as Message.time; re-stamped when a screen above this one closes, too.
        self._shown_at = _time.get_time()

    def on_screen_suspend(self) -> None:
        self._shown_at = None

    def on_key(self, event: events.Key) -> None:
        if self.is_stale(event):
            # Stop here: the App checks the bindings (Button's enter, tab) only after this.
            event.stop()
            event.prevent_default()
