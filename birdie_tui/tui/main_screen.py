"""The app's default screen: the composer owns the keyboard.

A click on a panel, a tab or a tool block must not take focus from the composer (the next
keys the user types would vanish into that panel, and Enter would act on it). Printable keys
that still reach another focused widget (after Tab, or the skill list's own key) are moved to
the composer, in the order they arrived.
"""

from __future__ import annotations

from textual import events
from textual.screen import Screen
from textual.widget import Widget

# Only these take focus from a click; everything else is clicked without stealing the keyboard.
CLICK_FOCUSABLE = frozenset({"composer"})  # widget ids
# Keys the skill list keeps while it has focus (it is focused on purpose, with its own key).
SKILL_LIST_KEYS = ("space",)


class MainScreen(Screen):
    """Layout comes from `App.compose`; this screen only guards focus and keys."""

    def get_focusable_widget_at(self, x: int, y: int) -> Widget | None:
        widget = super().get_focusable_widget_at(x, y)
        if widget is None:
            return None
        return widget if widget.id in CLICK_FOCUSABLE else None

    def _forward_event(self, event: events.Event) -> None:
        # Clicking empty space would blur the composer (Screen sets focus to None).
        if isinstance(event, events.MouseDown) and self.focused is not None:
            focused = self.focused
            super()._forward_event(event)
            if self.focused is None and focused.is_attached:
                self.set_focus(focused, scroll_visible=False)
            return
        super()._forward_event(event)

    def on_key(self, event: events.Key) -> None:
        if not event.is_printable or event.character is None:
            return
        composer = self._composer()
        focused = self.focused
        if composer is None or focused is composer:
            return
        if focused is not None and focused.has_class("skills--list") \
                and event.key in SKILL_LIST_KEYS:
            return
        event.stop()
        event.prevent_default()
        composer.focus(scroll_visible=False)
        composer.insert(event.character)

    def _composer(self) -> Widget | None:
        from birdie_tui.tui.widgets.composer import Composer

        try:
            return self.query_one("#composer", Composer)
        except Exception:  # noqa: BLE001 - before compose, or in a test app without one
            return None
