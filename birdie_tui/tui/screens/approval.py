"""Ask before a tool call that needs approval runs; the engine (or a resumed session) awaits
the answer.

Shows the tool, its skill and why it is gated, then the call: a file write's diff, a command
line or the arguments, in a box that scrolls. The choices are docked below it, so no command
or diff pushes them away. One key answers (y allow once, n deny), or two for the answers that
save something: c / t / s first show the exact rule or skill that will be saved, and the same
key (or Enter) again saves it. r asks for a reason the model is told. Esc is "not now": the
dialog closes with no answer and the call stays pending in the session, asked again later.

Nothing typed before the dialog could be read answers it: keys and clicks stamped before it
showed, or in its first `ARM_SECONDS`, are dropped (`GuardedModal`), so a word being typed
into the composer when the dialog pops up cannot allow a shell command.
"""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest
from birdie_tui.tui.screens import approval_text as text
from birdie_tui.tui.screens.dialog import GuardedModal
from birdie_tui.tui.screens.guarded_input import GuardedInput

REASON_LIMIT = 2000  # characters of a denial's reason (the engine keeps as many)
REASON_HINT = "Why not? The model is told.\nenter: deny with this reason · esc: back"


class Choice(Static):
    """One answer: its key and label on one row; a click picks it."""

    DEFAULT_CSS = """
    Choice {
        height: 1;
        width: 1fr;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &:hover { background: $boost; }
        &.-highlight { background: $accent 30%; text-style: bold; }
    }
    """

    class Picked(Message):
        def __init__(self, choice: str, time: float) -> None:
            super().__init__()
            self.choice = choice
            self.at = time  # when the click happened (the dialog drops early ones)

    def __init__(self, choice: str, key: str, label: str) -> None:
        super().__init__(markup=False, id=f"approval-choice-{choice}")
        self.choice = choice
        self.label = label
        self.show_key(key)

    def show_key(self, key: str) -> None:
        self.update(Content.assemble((f" {key} ", "bold reverse"), "  ", self.label))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Picked(self.choice, event.time))


class ApprovalScreen(GuardedModal[ApprovalAnswer | None]):
    """Dismisses with an `ApprovalAnswer`, or None for "not now" (the call stays pending).
    `answered` resolves the same way, also when the screen goes without an answer (the app
    exits, the session is switched): then with None."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        background: $background 60%;
    }
    ApprovalScreen > #approval-dialog {
        width: 100;
        max-width: 95%;
        height: auto;
        max-height: 100%;
        padding: 0 1;
        border: thick $accent 80%;
        background: $surface;
    }
    /* Header and choices are docked; the call gets what is left and scrolls inside it. */
    ApprovalScreen #approval-header {
        dock: top;
        height: auto;
        margin-bottom: 1;
    }
    ApprovalScreen #approval-header Static { width: 1fr; }
    ApprovalScreen #approval-why { color: $text-muted; }
    ApprovalScreen #approval-body {
        height: auto;
        max-height: 100%;
        padding: 0 1;
        background: $panel;
    }
    ApprovalScreen #approval-call {
        /* wrap, folding a long token, so nothing hides to the right */
        text-wrap: wrap;
        text-overflow: fold;
    }
    ApprovalScreen #approval-footer {
        dock: bottom;
        height: auto;
        margin-top: 1;
    }
    ApprovalScreen #approval-choices { height: auto; }
    ApprovalScreen #approval-reason { margin: 0 1; }
    ApprovalScreen #approval-preview {
        width: 1fr;
        height: auto;
        max-height: 5;
        padding: 0 1;
        text-wrap: wrap;
        text-overflow: fold;
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("y", "pick('once')", "Allow once", show=False, id="approval.allow_once"),
        Binding("c", "pick('command')", "Always this command", show=False,
                id="approval.allow_command"),
        Binding("t", "pick('tool')", "Always this tool", show=False, id="approval.allow_tool"),
        Binding("s", "pick('skill')", "Always this skill", show=False,
                id="approval.allow_skill"),
        Binding("n", "pick('deny')", "Deny", show=False, id="approval.deny"),
        Binding("r", "pick('reason')", "Deny with a reason", show=False,
                id="approval.deny_reason"),
        Binding("escape", "back", "Not now", show=False, id="approval.not_now"),
        Binding("enter", "confirm", "Confirm", show=False, id="approval.confirm"),
        Binding("up", "move(-1)", "Previous", show=False, id="approval.up"),
        Binding("down", "move(1)", "Next", show=False, id="approval.down"),
        Binding("pageup", "scroll_call('page_up')", show=False, id="approval.page_up"),
        Binding("pagedown", "scroll_call('page_down')", show=False, id="approval.page_down"),
        Binding("home", "scroll_call('home')", show=False, id="approval.home"),
        Binding("end", "scroll_call('end')", show=False, id="approval.end"),
    ]
    # Nothing focused: every key reaches the screen's guard and bindings (the call box is
    # scrolled by PageUp/PageDown and the wheel; the arrows choose).
    AUTO_FOCUS = ""
    # Keys and clicks this soon after the dialog showed are taken as type-ahead: someone who
    # was typing needs this long to notice that a dialog took the keyboard.
    ARM_SECONDS = 0.4

    def __init__(self, request: ApprovalRequest, *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.request = request
        self.cursor_blink = cursor_blink
        self.choices = text.choices_for(request)
        self.highlighted: str | None = None
        self._answered: asyncio.Future[ApprovalAnswer | None] | None = None
        self._keys = {choice: key for choice, key, _ in self.choices}

    @property
    def answered(self) -> asyncio.Future[ApprovalAnswer | None]:
        if self._answered is None:
            self._answered = asyncio.get_running_loop().create_future()
        return self._answered

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval-dialog"):
            with Vertical(id="approval-header"):
                yield Static(text.question(request), id="approval-question")
                yield Static(text.why(request), id="approval-why")
                outside = text.outside(request)
                if outside is not None:
                    yield Static(outside, id="approval-outside")
            with VerticalScroll(id="approval-body", can_focus=False):
                yield Static(text.body(request), id="approval-call")
            with Vertical(id="approval-footer"):
                with Vertical(id="approval-choices"):
                    for choice, key, label in self.choices:
                        yield Choice(choice, key, label)
                reason = GuardedInput(placeholder="e.g. use git status instead",
                                      max_length=REASON_LIMIT, compact=True,
                                      id="approval-reason")
                reason.cursor_blink = self.cursor_blink
                reason.display = False
                yield reason
                yield Static(id="approval-preview")

    def on_mount(self) -> None:
        self._show_keys()
        self._show_preview()

    # ------------------------------------------------------------------ guard
    def is_stale(self, event: events.Key) -> bool:
        return self._is_early(event.time)

    def _is_early(self, time: float) -> bool:
        shown = self.shown_at
        return shown is None or time < shown + self.ARM_SECONDS

    # ------------------------------------------------------------------ answers
    def answer(self, value: ApprovalAnswer | None) -> None:
        """The one way out: resolve `answered`, then close."""
        if not self.answered.done():
            self.answered.set_result(value)
            self.dismiss(value)

    def leave(self) -> None:
        """Close without an answer (a session switch, the app leaving): stays pending."""
        if not self.answered.done():
            self.answered.set_result(None)
            if self.is_attached and self.app.screen is self:
                self.dismiss(None)

    def on_unmount(self) -> None:
        # Gone without an answer (the app exits under it): the call stays pending.
        if not self.answered.done():
            self.answered.set_result(None)

    def action_pick(self, choice: str) -> None:
        if self._reason_open or choice not in self._keys:
            return
        if choice == "once":
            self.answer(ApprovalAnswer("allow"))
        elif choice == "deny":
            self.answer(ApprovalAnswer("deny"))
        elif choice == "reason":
            self._open_reason()
        elif self.highlighted == choice:  # the second press: what was shown is saved
            self.answer(ApprovalAnswer("allow", remember=choice))
        else:
            self._highlight(choice)

    def action_confirm(self) -> None:
        if self.highlighted is None or self._reason_open:
            return
        choice = self.highlighted
        if choice in text.REMEMBERED:
            self.answer(ApprovalAnswer("allow", remember=choice))
        else:
            self.action_pick(choice)

    def action_back(self) -> None:
        """Esc steps back: out of the reason, then off a highlighted choice, then "not now"."""
        if self._reason_open:
            self._close_reason()
        elif self.highlighted is not None:
            self._highlight(None)
        else:
            self.answer(None)

    def action_move(self, step: int) -> None:
        if self._reason_open:
            return
        order = [choice for choice, _, _ in self.choices]
        if self.highlighted is None:
            self._highlight(order[0] if step > 0 else order[-1])
        else:
            self._highlight(order[(order.index(self.highlighted) + step) % len(order)])

    def action_scroll_call(self, how: str) -> None:
        getattr(self.query_one("#approval-body", VerticalScroll), f"scroll_{how}")(animate=False)

    def on_choice_picked(self, event: Choice.Picked) -> None:
        event.stop()
        if not self._is_early(event.at):
            self.action_pick(event.choice)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer(ApprovalAnswer("deny", reason=event.value.strip()[:REASON_LIMIT]))

    # ------------------------------------------------------------------ state shown
    @property
    def _reason_open(self) -> bool:
        return self.is_mounted and self.query_one("#approval-reason", Input).display

    def _open_reason(self) -> None:
        self._highlight("reason")
        reason = self.query_one("#approval-reason", Input)
        reason.display = True
        self._show_preview()
        reason.focus()

    def _close_reason(self) -> None:
        reason = self.query_one("#approval-reason", Input)
        reason.display = False
        self.set_focus(None)
        self._highlight(None)

    def _highlight(self, choice: str | None) -> None:
        self.highlighted = choice
        for widget in self.query(Choice):
            widget.set_class(widget.choice == choice, "-highlight")
        self._show_preview()

    def _show_preview(self) -> None:
        key = self._keys.get(self.highlighted or "", "")
        self.query_one("#approval-preview", Static).update(
            Content(REASON_HINT) if self._reason_open
            else text.preview(self.request, self.highlighted, key))

    def _show_keys(self) -> None:
        """Each choice shows the key it has now (a keymap may have moved it)."""
        bound: dict[str, str] = {}
        for active in self.active_bindings.values():
            action = active.binding.action
            if action.startswith("pick(") and active.binding.id:
                choice = action[len("pick('"):-2]
                bound.setdefault(choice, self.app.get_key_display(active.binding))
        for widget in self.query(Choice):
            if widget.choice in bound:
                self._keys[widget.choice] = bound[widget.choice]
                widget.show_key(bound[widget.choice])
