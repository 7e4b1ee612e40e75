"""The one-line status bar: model, session, approval mode, context fill, session tokens, busy
state, and how many other sessions run a turn or wait for an approval. The approval mode shows only when it is not the default (ask): auto-approve and
read-only change what tools may do, so they stay in sight.

It renders from stored fields at paint time, so the title is cut to whatever width the
terminal has. No timers: the busy mark is static text, which keeps snapshots deterministic.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widget import Widget

from birdie_tui.screen_text import one_line
from birdie_tui.tui.widgets.format import fmt_pct, fmt_tokens

SEP = " │ "
BUSY_TEXT = "● working"
# The approval modes other than "ask", as shown (and their style).
MODE_TEXT = {"auto": ("⏵⏵ auto-approve", "bold $warning"),
             "read-only": ("read-only", "bold $success")}


class StatusBar(Widget):
    """Always-visible facts about the session, in one row."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = ""
        self.session_id = ""
        self.title: str | None = None
        self.context_tokens = 0
        self.context_window: int | None = None
        self.session_in = 0
        self.session_out = 0
        self.busy = False
        self.approval_mode = "ask"
        self.others = ""  # other sessions' turns (`others_text`); "" when none

    def update_status(
        self,
        *,
        model: str,
        session_id: str,
        title: str | None,
        context_tokens: int,
        context_window: int | None,
        session_in: int,
        session_out: int,
        busy: bool,
        approval_mode: str = "ask",
        others: str = "",
    ) -> None:
        facts = (model, session_id, title, context_tokens, context_window, session_in,
                 session_out, busy, approval_mode, others)
        if facts == self._facts():
            return  # the same line: a repaint would draw the same cells (bench/RESULTS.md §35)
        (self.model, self.session_id, self.title, self.context_tokens, self.context_window,
         self.session_in, self.session_out, self.busy, self.approval_mode, self.others) = facts
        self.refresh()

    def _facts(self) -> tuple[object, ...]:
        return (self.model, self.session_id, self.title, self.context_tokens,
                self.context_window, self.session_in, self.session_out, self.busy,
                self.approval_mode, self.others)

    def status_content(self, width: int) -> Content:
        """The line for a given width; the title gives way first, then the model name."""
        ctx = f"ctx {fmt_tokens(self.context_tokens, compact=True)}"
        if self.context_window:
            ctx += f" ({fmt_pct(self.context_tokens, self.context_window)})"
        tokens = (
            f"↑{fmt_tokens(self.session_in, compact=True)} "
            f"↓{fmt_tokens(self.session_out, compact=True)}"
        )
        sep = Content.styled(SEP, "$foreground-muted")
        mode = MODE_TEXT.get(self.approval_mode)
        tail = Content.assemble(
            *((sep, Content.styled(*mode)) if mode else ()),
            sep,
            Content.styled(ctx, self._ctx_style()),
            sep,
            tokens,
            *((sep, Content.styled(BUSY_TEXT, "bold $warning")) if self.busy else ()),
            *((sep, Content.styled(self.others, "$warning")) if self.others else ()),
            " ",
        )
        model = one_line(self.model or "no model")
        session = one_line(self.session_id or "no session")
        fixed = 1 + len(model) + len(SEP) + len(session) + tail.cell_length
        title = one_line(self.title or "")
        room = width - fixed - len(" · ")
        if title and room >= 4:
            if len(title) > room:
                title = title[: room - 1].rstrip() + "…"
            session_part = Content.assemble(session, Content.styled(" · ", "$foreground-muted"), title)
        else:
            session_part = Content(session)
        # Still too wide (tiny terminal): shorten the model name before anything else.
        overflow = 1 + len(model) + len(SEP) + session_part.cell_length + tail.cell_length - width
        if overflow > 0 and len(model) > 4:
            model = model[: max(3, len(model) - overflow - 1)] + "…"
        return Content.assemble(
            " ", Content.styled(model, "bold $accent"), sep, session_part, tail
        )

    def _ctx_style(self) -> str:
        if not self.context_window:
            return ""
        share = self.context_tokens / self.context_window
        if share >= 0.9:
            return "bold $error"
        if share >= 0.7:
            return "$warning"
        return ""

    def render(self) -> Content:
        return self.status_content(self.size.width or 80)


def others_text(busy: dict[str, str], shown: str) -> str:
    """The other sessions' turns in a few words: "1 other running, 1 awaiting approval"."""
    states = [state for sid, state in busy.items() if sid != shown]
    waiting = sum(state == "waiting for approval" for state in states)
    running = len(states) - waiting
    parts = ([f"{running} other running"] if running else []) + \
        ([f"{waiting} awaiting approval"] if waiting else [])
    return ", ".join(parts)
