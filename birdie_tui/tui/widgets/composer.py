"""The message input: Enter sends, ctrl+j adds a line, ↑/↓ walk history, Tab completes /commands,
ctrl+x ctrl+e (or F4) writes the message in $VISUAL / $EDITOR (`tui/editor.py`).

Keys are plain (non-priority) bindings with ids, and the composer runs them itself as each key
arrives (`_run_own_binding`), so a burst (fast typing, a paste, tmux) lands in order: a priority
binding would run before earlier keys had reached the text, and Textual's usual path runs a
plain one only after later printable keys were inserted. Enter is one of them (TextArea would
insert a newline first), so even Enter can be rebound through the keymap. ↑/↓ away from the first/
last line move the cursor as usual; Tab in an empty composer moves focus on, and does nothing in
a half-written message (the keys after it must not land elsewhere).

`@` starts a mention (`mentions.py` at the screen): while the word at the cursor starts with
`@`, the screen is told what follows it (`MentionQuery`) and shows its list (`MentionList`);
while that list is open ↑/↓ move in it, Tab or Enter put the choice in, Esc closes it.

A big paste (over 10,000 characters or 200 lines) shows as a one-line marker and is sent whole
(`pastes.py`): typing stays instant after a 5 MB paste. Backspace or Delete next to a marker
removes the whole paste. A message over `pastes.MESSAGE_LIMIT` (10 MB) is refused with a
toast, and loses nothing: the text stays in the composer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Protocol

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingsMap
from textual.message import Message
from textual.widgets import TextArea

from birdie_tui.tui.widgets.pastes import (
    MESSAGE_LIMIT,
    PasteShelf,
    byte_size,
    should_fold,
    unix_newlines,
)

HISTORY_LIMIT = 1_000
HISTORY_CHARS = 32 * 1024 * 1024  # ↑ history keeps big messages, but not without end
HINT_MATCHES = 6
_RANGE_TYPED = re.compile(r":\d")  # @path:10-40: the range is the user's, nothing to complete


class CompletionPopup(Protocol):
    """The list the composer's keys reach while a mention is typed (`MentionList`)."""

    @property
    def is_open(self) -> bool: ...
    def move(self, step: int) -> None: ...
    def chosen(self) -> str | None: ...
    def close(self) -> None: ...


class Composer(TextArea):
    """Where the user writes. The app mounts it with id="composer" and listens for `Submitted`."""

    DEFAULT_CSS = """
    Composer {
        height: auto;
        min-height: 3;
        max-height: 10;
        border: tall $border-blurred;
        &:focus { border: tall $primary; }
    }
    """

    BINDINGS = [
        Binding("enter", "submit", "Send", id="composer.submit"),
        Binding("ctrl+j,shift+enter", "newline", "Newline", id="composer.newline"),
        Binding("up", "history_previous", "Previous", id="composer.history_previous", show=False),
        Binding("down", "history_next", "Next", id="composer.history_next", show=False),
        Binding("tab", "complete", "Complete", id="composer.complete", show=False),
        Binding("escape", "close_mentions", show=False, id="composer.close_mentions"),
        # Also the readline chord ctrl+x ctrl+e (see `_chord`).
        Binding("f4", "external_editor", "Editor", id="composer.editor", show=False),
        # ctrl+r: earlier inputs of every session (the screen's picker: the door has them).
        Binding("ctrl+r", "screen.pick_input", "History", id="composer.search_history",
                show=False),
        # PageUp/PageDown scroll the conversation (the app's bindings), not this small box.
        Binding("pageup,pagedown", "pass_to_app", show=False, id="composer.pass_page"),
    ]

    class _Text(Message):
        """A message from the composer carrying some text."""

        def __init__(self, composer: Composer, text: str) -> None:
            super().__init__()
            self.composer = composer
            self.text = text

        @property
        def control(self) -> Composer:
            return self.composer

    class Submitted(_Text):
        """The user pressed Enter on a non-empty message (text is stripped)."""

    class Hint(_Text):
        """The /commands matching what is typed changed; `text` is "" when there are none."""

    class MentionQuery(Message):
        """The @-mention at the cursor changed: `query` is what follows "@", None when the
        cursor left it (the list closes)."""

        def __init__(self, composer: Composer, query: str | None) -> None:
            super().__init__()
            self.composer = composer
            self.query = query

        @property
        def control(self) -> Composer:
            return self.composer

    def __init__(
        self,
        text: str = "",
        *,
        cursor_blink: bool = True,
        placeholder: str = "",
        message_limit: int = MESSAGE_LIMIT,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self._shelf = PasteShelf(message_limit)  # before TextArea loads `text`
        super().__init__(
            text, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
            highlight_cursor_line=False, placeholder=placeholder, id=id, classes=classes,
        )
        self.cursor_blink = cursor_blink
        # Not `history`: TextArea keeps its undo stack there.
        self.input_history: list[str] = []
        self._history_index: int | None = None  # None: editing the draft, not a history entry
        self._draft = ""
        self._commands: list[str] = []
        self._cycle: list[str] = []  # matches Tab is cycling through
        self._cycle_index = -1
        self._cycle_text: str | None = None  # the text the last completion put in
        self.current_hint = ""
        self._keymapped: tuple[object, BindingsMap] | None = None  # (keymap, bindings)
        self.mention_popup: CompletionPopup | None = None  # set by the screen
        self._mention: str | None = None  # the query last posted
        self._dismissed: tuple[int, int] | None = None  # where Esc closed the list
        # ↑ in an empty composer first takes back a message queued while a turn runs.
        self.take_queued: Callable[[], str | None] = lambda: None
        # The text just before a ctrl+x (the chord ctrl+x ctrl+e puts it back).
        self._before_cut: tuple[str, tuple[int, int]] | None = None

    # -- sending ------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        if self._chord(event):
            return
        # Enter too: TextArea would insert a newline for it before any binding is looked at.
        if await self._run_own_binding(event):
            return
        await super()._on_key(event)

    def _chord(self, event: events.Key) -> bool:
        """ctrl+x ctrl+e opens the editor, as in a shell. ctrl+x keeps cutting (the line, with
        nothing selected): the ctrl+e that follows puts back what it cut, then opens."""
        before, self._before_cut = self._before_cut, None
        if event.key == "ctrl+x":
            self._before_cut = (self.text, self.cursor_location)
            return False
        if event.key != "ctrl+e" or before is None:
            return False
        self.load_text(before[0])
        self.move_cursor(before[1])
        event.stop()
        event.prevent_default()
        self.action_external_editor()
        return True

    def action_external_editor(self) -> None:
        """The message in $VISUAL / $EDITOR; the app steps aside until it exits."""
        from birdie_tui.tui.editor import edit_in_editor

        edit_in_editor(self)

    async def _run_own_binding(self, event: events.Key) -> bool:
        """Run this widget's binding for `event` now, in key order.

        Textual checks non-priority bindings only once a key has bubbled up to the App, by
        which time the printable keys behind it in a burst (a paste, a fast typist, tmux) have
        already been inserted: ctrl+j, backspace or ← would land at the end. A binding whose
        action skips (Tab to move focus, PageUp for the chat) is left to bubble as usual.
        """
        for binding in self._keymapped_bindings().key_to_bindings.get(event.key, ()):
            if binding.priority or not self.check_action(binding.action, ()):
                continue
            if await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return True
        return False

    def _keymapped_bindings(self) -> BindingsMap:
        """This widget's bindings with the user's keymap applied (what Textual's binding chain
        would give), rebuilt only when the keymap changes: this runs for every key typed."""
        keymap = self.app._keymap  # set_keymap installs a new dict, so identity tells a change
        if self._keymapped is None or self._keymapped[0] is not keymap:
            bindings = self._bindings.copy()
            if keymap:
                bindings.apply_keymap(keymap)
            self._keymapped = (keymap, bindings)
        return self._keymapped[1]

    def action_submit(self) -> None:
        if self._popup_choose():
            return
        folded = self.text.strip()
        if not folded:
            return
        text = self._shelf.expand(folded).strip()  # a paste's own edges too
        if not text:
            return
        if byte_size(text) > self._shelf.limit:
            self.notify(f"Not sent: {self._shelf.too_big(folded)}.", title="Message too big",
                        severity="error")
            return
        self.add_history(text)
        self._shelf.sent(folded, text)
        self.clear()
        self.post_message(self.Submitted(self, text))

    # -- big pastes ---------------------------------------------------------------------------

    async def _on_paste(self, event: events.Paste) -> None:
        """A big paste is held aside behind a marker; one that makes the message too big is
        refused. A small one is left to TextArea (which runs after this handler)."""
        text = unix_newlines(event.text)  # a CR-only paste is many lines, not one
        if self.read_only or not should_fold(text):
            return
        event.prevent_default()
        event.stop()
        problem = self._shelf.too_big(self.text, text)
        if problem is not None:
            self.notify(f"Paste refused: {problem}.", title="Paste too big", severity="error")
            return
        if result := self._replace_via_keyboard(self._shelf.hold(text), *self.selection):
            self.move_cursor(result.end_location)
            self.focus()

    def load_text(self, text: str) -> None:
        """Load `text`; a big one (history, a message handed back) comes back as markers."""
        super().load_text(self._shelf.fold(text))

    @property
    def full_text(self) -> str:
        """The message as it would be sent: markers replaced by their pastes."""
        return self._shelf.expand(self.text)

    def action_delete_left(self) -> None:
        if not self._delete_marker(before=True):
            super().action_delete_left()

    def action_delete_right(self) -> None:
        if not self._delete_marker(before=False):
            super().action_delete_right()

    def _delete_marker(self, *, before: bool) -> bool:
        """Backspace after (Delete before) a paste marker removes the whole paste."""
        if self.read_only or not self._shelf.pastes or not self.selection.is_empty:
            return False
        row, col = self.cursor_location
        line = self.document.get_line(row)
        if before:
            marker = self._shelf.marker_ending_at(line, col)
            span = ((row, col - len(marker)), (row, col)) if marker else None
        else:
            marker = self._shelf.marker_starting_at(line, col)
            span = ((row, col), (row, col + len(marker))) if marker else None
        if span is None:
            return False
        self._delete_via_keyboard(*span)
        return True

    def action_newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)

    # -- history ------------------------------------------------------------------------------

    def add_history(self, text: str) -> None:
        """Remember a sent message (consecutive repeats are kept once)."""
        if text and (not self.input_history or self.input_history[-1] != text):
            self.input_history.append(text)
            del self.input_history[:-HISTORY_LIMIT]
            self._bound_history()
        self._history_index = None

    def set_history(self, items: list[str]) -> None:
        """Replace the history, oldest first (e.g. the session's earlier user messages)."""
        self.input_history = [item for item in items if item][-HISTORY_LIMIT:]
        self._bound_history()
        self._history_index = None

    def _bound_history(self) -> None:
        """Oldest entries go once the history holds more than HISTORY_CHARS (the newest
        entry always stays)."""
        total = sum(map(len, self.input_history))
        while total > HISTORY_CHARS and len(self.input_history) > 1:
            total -= len(self.input_history.pop(0))

    def action_history_previous(self) -> None:
        if self.mention_popup is not None and self.mention_popup.is_open:
            self.mention_popup.move(-1)
            return
        if not self.text and (queued := self.take_queued()) is not None:
            self._show(queued, at_end=True)
            return
        if not self.cursor_at_first_line or not self.input_history:
            self.action_cursor_up()  # our "up" binding hides TextArea's
            return
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.input_history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        else:
            return  # already at the oldest entry
        self._show(self.input_history[self._history_index], at_end=False)

    def action_history_next(self) -> None:
        if self.mention_popup is not None and self.mention_popup.is_open:
            self.mention_popup.move(1)
            return
        if not self.cursor_at_last_line or self._history_index is None:
            self.action_cursor_down()
            return
        self._history_index += 1
        if self._history_index >= len(self.input_history):
            self._history_index = None
            self._show(self._draft, at_end=True)
        else:
            self._show(self.input_history[self._history_index], at_end=True)

    def _show(self, text: str, *, at_end: bool) -> None:
        """Load `text`; the cursor goes where the next ↑ (first line) or ↓ (last line) continues."""
        self.load_text(text)
        if at_end:
            self.move_cursor(self.document.end)
        else:
            self.move_cursor((0, len(self.document.get_line(0))))

    # -- slash-command completion -------------------------------------------------------------

    def set_commands(self, commands: list[str]) -> None:
        self._commands = sorted(set(commands))
        self._update_hint()

    def matching_commands(self, text: str | None = None) -> list[str]:
        text = self.text if text is None else text
        if not text.startswith("/") or "\n" in text:
            return []
        return [command for command in self._commands if command.startswith(text)]

    def action_pass_to_app(self) -> None:
        raise SkipAction()

    def action_complete(self) -> None:
        if self._popup_choose():
            return
        text = self.text
        if text.strip() and not text.startswith("/"):
            return  # mid-message: Tab must not carry the next keys (and Enter) elsewhere
        if not text.startswith("/") or "\n" in text:
            raise SkipAction()  # Tab moves focus as usual
        if self._cycle and text == self._cycle_text:
            self._cycle_index = (self._cycle_index + 1) % len(self._cycle)
            if self._cycle[self._cycle_index] == text and len(self._cycle) > 1:
                self._cycle_index = (self._cycle_index + 1) % len(self._cycle)
            self._complete_to(self._cycle[self._cycle_index])
            return
        matches = self.matching_commands(text)
        if not matches:
            return  # keep focus here: the user is typing a command
        if len(matches) == 1:
            self._cycle = []
            self._complete_to(matches[0])
            return
        self._cycle = matches
        prefix = os.path.commonprefix(matches)
        if len(prefix) > len(text):
            self._cycle_index = -1
            self._complete_to(prefix)
        else:
            self._cycle_index = 0
            self._complete_to(matches[0])

    def _complete_to(self, text: str) -> None:
        self._cycle_text = text
        self.replace(text, (0, 0), self.document.end, maintain_selection_offset=False)
        self._update_hint()

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._update_hint()
        self._update_mention()

    def _on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._update_mention()

    # -- @-mentions ---------------------------------------------------------------------------

    def mention_at_cursor(self) -> tuple[int, int, int, str] | None:
        """(row, start, end, query) of the `@word` the cursor is in or just after."""
        if not self.selection.is_empty:
            return None
        row, col = self.cursor_location
        line = self.document.get_line(row)
        start = max(line.rfind(" ", 0, col), line.rfind("\t", 0, col)) + 1
        if not line.startswith("@", start) or start == col:
            return None
        end = len(line)
        for space in (" ", "\t"):
            found = line.find(space, col)
            if found >= 0:
                end = min(end, found)
        query = line[start + 1:col]
        if '"' in query or _RANGE_TYPED.search(query):
            return None
        return row, start, end, query

    def _update_mention(self) -> None:
        found = self.mention_at_cursor()
        query = None if found is None else found[3]
        if found is not None and self._dismissed == found[:2]:
            query = None  # Esc closed it: it opens again on the next mention
        elif found is None or self._dismissed is not None and self._dismissed[:2] != found[:2]:
            self._dismissed = None
        if query != self._mention:
            self._mention = query
            self.post_message(self.MentionQuery(self, query))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc is the @-list's only while the list is open: otherwise it is not this
        widget's (the footer shows the screen's Esc, and the screen gets it)."""
        if action == "close_mentions":
            popup = self.mention_popup
            return popup is not None and popup.is_open
        return super().check_action(action, parameters)

    def action_close_mentions(self) -> None:
        popup = self.mention_popup
        found = self.mention_at_cursor()
        if popup is None or not popup.is_open or found is None:
            raise SkipAction()  # Esc cancels a turn as usual
        self._dismissed = found[:2]
        self._mention = None
        popup.close()

    def _popup_choose(self) -> bool:
        popup = self.mention_popup
        if popup is None or not popup.is_open:
            return False
        choice = popup.chosen()
        if choice is None:
            popup.close()
            return False
        self.insert_mention(choice)
        return True

    def insert_mention(self, value: str) -> None:
        """Put `@value` in place of the mention at the cursor: a folder stays open (its
        entries are listed next), anything else is followed by a space."""
        found = self.mention_at_cursor()
        if found is None:
            return
        row, start, end, _ = found
        text = f'@"{value}"' if " " in value else f"@{value}"
        if not value.endswith("/") or " " in value:
            text += " "
        result = self.replace(text, (row, start), (row, end), maintain_selection_offset=False)
        self.move_cursor(result.end_location)

    def _update_hint(self) -> None:
        cycling = bool(self._cycle) and self.text == self._cycle_text
        if not cycling:
            self._cycle = []
        matches = self._cycle if cycling else self.matching_commands()
        hint = "  ".join(matches[:HINT_MATCHES])
        if len(matches) > HINT_MATCHES:
            hint += f"  … +{len(matches) - HINT_MATCHES} more"
        if hint != self.current_hint:
            self.current_hint = hint
            self.post_message(self.Hint(self, hint))
