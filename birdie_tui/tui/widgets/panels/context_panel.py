"""What a model call was given (`#context`): every segment of its prompt in order, why each was
there and its size, what changed since the call before, and the body of the chosen one.

This is how a user finds out why the agent "knew" something, and why a prompt cache missed.
It shows the latest call by default; ←/→ step through past turns and shift+←/→ through the
calls of one (the records come from the front door's `contexts()` and the live `injected`
events). A session recorded before provenance existed shows the older view: the injected
skill bodies of its last turn, from `injection()`. Under the call, the session's sub-agent runs
(`context_runs.py`): picking one shows that child's calls the same way, named by its agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from collections.abc import Sequence
from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.screen_text import clean, one_line
from birdie_tui.service.rows import InjectionView
from birdie_tui.tui.widgets.format import fmt_tokens
from birdie_tui.tui.widgets.panels.context_body import (
    injection_body,
    reason_label,
    segment_body,
)
from birdie_tui.tui.widgets.panels.context_calls import CallBrowser
from birdie_tui.tui.widgets.panels.context_runs import AgentRuns
from birdie_tui.tui.widgets.panels.context_lines import (
    change_lines,
    first_body,
    header,
    left_lines,
    legend,
    segment_prompt,
)
from birdie_tui.tui.widgets.preview import bounded_markdown

if TYPE_CHECKING:
    from birdie_tui.service.rows import AgentRunRow, CallContext, InjectionRow

__all__ = ["EMPTY_TEXT", "ContextPanel", "injection_prompt", "reason_label"]

EMPTY_TEXT = "Nothing injected this turn."


def injection_prompt(row: InjectionRow) -> Content:
    return Content.assemble(
        Content.styled(row.name, "bold"),
        Content.styled(" — ", "$foreground-muted"),
        Content.styled(reason_label(row.reason), "$accent"),
        Content.styled(f" — ≈{fmt_tokens(row.tokens)} tok", "$foreground-muted"),
    )


class ContextPanel(Vertical):
    """The provenance of the chosen model call (or, without records, the last injection)."""

    # Priority: the focused list would take ←/→ for scrolling sideways (they apply only while
    # focus is in the panel, ctrl+g).
    BINDINGS = [
        Binding("left", "step_turn(-1)", "Older turn", id="context.older_turn", priority=True),
        Binding("right", "step_turn(1)", "Newer turn", id="context.newer_turn", priority=True),
        Binding("shift+left", "step_call(-1)", "Prev call", id="context.previous_call",
                priority=True),
        Binding("shift+right", "step_call(1)", "Next call", id="context.next_call",
                priority=True),
    ]

    DEFAULT_CSS = """
    ContextPanel {
        height: 1fr;
        background: $surface;
        & > .context--summary { height: auto; padding: 0 1; color: $foreground;
                                text-style: bold; }
        & > .context--legend { height: auto; padding: 0 1; color: $foreground-muted; }
        & > .context--empty { height: auto; padding: 0 1; color: $text-muted; text-style: italic; }
        & > .context--list {
            height: auto;
            max-height: 13;
            background: $surface;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            &:focus { background-tint: $primary 5%; }
        }
        & > .context--changes, & > .context--left {
            height: auto;
            max-height: 9;
            padding: 0 1;
            border-top: hkey $panel;
        }
        & > .context--memory {
            height: auto;
            max-height: 8;
            padding: 0 1;
            border-top: hkey $panel;
            color: $foreground;
        }
        & > .context--body {
            height: 1fr;
            min-height: 4;
            border-top: hkey $panel;
            border-title-color: $accent;
            background: $boost;
        }
        & > .context--body > Markdown { margin: 0 1; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._view = InjectionView()
        self.calls = CallBrowser()
        self._shown: tuple[int, int, int] | None = None  # (index, turn, call) on screen
        self._summary = Static(classes="context--summary")
        self._legend = Static(legend(focused=False), classes="context--legend")
        self._empty = Static(EMPTY_TEXT, classes="context--empty")
        self._list = OptionList(classes="context--list", compact=True)
        self._changes = Static(classes="context--changes")
        self._left = Static(classes="context--left")
        self._memory = Static(classes="context--memory")
        self.body = Markdown("", classes="context--body-markdown")
        self._body_scroll = VerticalScroll(self.body, classes="context--body")
        self.runs = AgentRuns(classes="context--runs")
        self.runs.display = False
        self.child: tuple[str, str] | None = None  # (child, agent) whose calls are shown

    def compose(self) -> ComposeResult:
        yield self._summary
        yield self._legend
        yield self._empty
        yield self._list
        yield self._changes
        yield self._left
        yield self._body_scroll
        yield self.runs
        yield self._memory  # last: reads as its own section, not as the selected body

    def on_mount(self) -> None:
        self._render_view()

    # ------------------------------------------------------------ what it is given
    @property
    def view(self) -> InjectionView:
        return self._view

    @property
    def record(self) -> CallContext | None:
        """The call shown (None: no records, the injection view is shown)."""
        return self.calls.current

    def show(self, view: InjectionView) -> None:
        """The latest call's injection (a live `injected` event, or the door's `injection()`):
        its record joins the list; the view follows it unless the user went back in time."""
        self._view = view
        if view.context is not None and self.child is None:  # a child's list stays its own
            self.calls.add(view.context)
        self._rerender()

    def set_records(self, records: Sequence[CallContext], *, keep: bool = True) -> None:
        """Every call of the session (the door's `contexts()`), oldest first."""
        if self.child is not None:
            self.child, keep = None, False
            self.runs.set_runs(self.runs.runs, None)
        self.calls.replace(records, keep=keep)
        self._rerender()

    def set_agent_runs(self, runs: list[AgentRunRow]) -> None:
        """The shown session's sub-agent runs (the door's `agent_runs()`)."""
        shown = self.child[0] if self.child is not None else None
        self.runs.set_runs(runs, shown if any(r.child == shown for r in runs) else None)

    def show_child(self, child: str, agent: str, records: Sequence[CallContext]) -> None:
        """One child's model calls (the door's `child_contexts`), stepped like the session's."""
        self.calls.replace(records, keep=False)
        self.child = (child, agent)
        self.runs.set_runs(self.runs.runs, child)
        self._rerender()

    def clear(self) -> None:
        self._view = InjectionView()
        self.child = None
        self.calls.replace([], keep=False)
        self._rerender()

    def set_memory(self, notes: list[str]) -> None:
        """Long-term memory changed (/remember, /memory delete): the count is live."""
        self._view = replace(self._view, memory=tuple(notes))
        if self.is_mounted:
            self._render_memory()

    def focus_list(self) -> bool:
        """Focus the rows (the panel's keys then work); False when there is nothing to show."""
        if not self._list.display:
            return False
        self._list.focus()
        return True

    # ------------------------------------------------------------ keys
    def on_descendant_focus(self) -> None:
        self._legend.update(legend(focused=True))

    def on_descendant_blur(self) -> None:
        self._legend.update(legend(focused=False))

    def action_step_turn(self, delta: int) -> None:
        if self.calls.step_turn(delta):
            self._rerender()
        else:
            self.app.bell()

    def action_step_call(self, delta: int) -> None:
        if self.calls.step_call(delta):
            self._rerender()
        else:
            self.app.bell()

    # ------------------------------------------------------------ drawing
    def _rerender(self) -> None:
        if self.is_mounted:
            self._render_view()

    def _render_view(self) -> None:
        record = self.calls.current
        if record is None:
            self._render_injection()
        else:
            self._render_record(record)
        self._render_memory()

    def _render_record(self, record: CallContext) -> None:
        place = self.calls.place()
        assert place is not None
        previous = self.calls.previous
        same = self._shown == (place.index, record.turn, record.call)  # redrawn, not moved
        keep = self._list.highlighted if same else None
        self._shown = (place.index, record.turn, record.call)
        who = f"{self.child[1]} · " if self.child is not None else ""
        self._summary.update(who + header(record, call=place.call, calls=place.calls,
                                          retried=place.retried))
        self._fill_list([Option(segment_prompt(seg), id=f"segment-{i}")
                         for i, seg in enumerate(record.segments)])
        self._legend.display = self._changes.display = True
        from birdie_tui.service.rows import compare  # the provenance loads with the first call

        self._changes.update(change_lines(compare(record, previous), previous))
        left = left_lines(record)
        self._left.update(left if left is not None else "")
        self._left.display = left is not None
        if keep is None or keep >= len(record.segments):
            keep = first_body(record) if record.segments else None
        self._highlight(keep)

    def _render_injection(self) -> None:
        """No provenance records: the injected bodies of the last turn, as before them."""
        view = self._view
        self._shown = None
        self._summary.update(Content.assemble(
            f"System prompt ≈ {fmt_tokens(view.prompt_tokens)} tokens",
            Content.styled(" · ", "$foreground-muted"),
            f"catalog ≈ {fmt_tokens(view.catalog_tokens)} tokens",
        ))
        self._legend.display = self._changes.display = self._left.display = False
        self._fill_list([Option(injection_prompt(row), id=f"injected-{i}")
                         for i, row in enumerate(view.skills)])
        self._highlight(0 if view.skills else None)

    def _fill_list(self, options: list[Option]) -> None:
        self._list.clear_options()
        self._list.add_options(options)
        self._empty.display = not options
        self._list.display = self._body_scroll.display = bool(options)

    def _highlight(self, index: int | None) -> None:
        if index is not None:
            self._list.highlighted = index
        self._show_body(index)

    def _render_memory(self) -> None:
        notes = self._view.memory
        memory = Content.styled(f"Long-term memory ({len(notes)})", "bold")
        for entry in notes:
            memory = memory.append("\n").append(
                Content.assemble(Content.styled("• ", "$accent"), entry))
        self._memory.update(memory)

    # ------------------------------------------------------------ the body below
    def _show_body(self, index: int | None) -> None:
        record = self.calls.current
        if record is None:
            title, text = injection_body(self._view, index)
        elif index is not None and 0 <= index < len(record.segments):
            title, text = segment_body(record, record.segments[index], self._view,
                                       shown_latest=record is self.calls.latest)
        else:
            title, text = "", ""
        self._body_scroll.border_title = one_line(title)
        # A 10,000-line body would take the Markdown widget ~15 s (the app frozen meanwhile).
        text = clean(bounded_markdown(text, where="the model got all of it; the skill's file has it"))
        if self.body.source != text:
            self.body.update(text)
            self._body_scroll.scroll_home(animate=False)

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_body(event.option_index)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._show_body(event.option_index)
