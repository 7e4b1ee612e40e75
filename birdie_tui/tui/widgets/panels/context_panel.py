"""What the last model call's system prompt carried: which skill bodies, why, and at what cost.

This is how a user finds out why the agent "knew" something: each injected body is listed
with its reason and token estimate, and the highlighted one is shown in full below.
"""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.service.rows import InjectionRow, InjectionView
from birdie_tui.tui.widgets.format import fmt_tokens

EMPTY_TEXT = "Nothing injected this turn."


def reason_label(reason: str) -> str:
    """The engine's reason code, in words: trigger:<phrase> → trigger “phrase”."""
    if reason.startswith("trigger:"):
        return f"trigger “{reason.removeprefix('trigger:')}”"
    if reason in ("always_inject", "always"):
        return "always"
    return reason


def injection_prompt(row: InjectionRow) -> Content:
    return Content.assemble(
        Content.styled(row.name, "bold"),
        Content.styled(" — ", "$foreground-muted"),
        Content.styled(reason_label(row.reason), "$accent"),
        Content.styled(f" — ≈{fmt_tokens(row.tokens)} tok", "$foreground-muted"),
    )


class ContextPanel(Vertical):
    """Injected skill bodies and long-term memory for the latest turn."""

    DEFAULT_CSS = """
    ContextPanel {
        height: 1fr;
        background: $surface;
        & > .context--summary { height: auto; padding: 0 1; color: $foreground; }
        & > .context--empty { height: auto; padding: 0 1; color: $text-muted; text-style: italic; }
        & > .context--list {
            height: auto;
            max-height: 10;
            background: $surface;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            &:focus { background-tint: $primary 5%; }
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
            border-top: hkey $panel;
            border-title-color: $accent;
            background: $boost;
        }
        & > .context--body > Markdown { margin: 0 1; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._view = InjectionView()
        self._summary = Static(classes="context--summary")
        self._empty = Static(EMPTY_TEXT, classes="context--empty")
        self._list = OptionList(classes="context--list", compact=True)
        self._memory = Static(classes="context--memory")
        self.body = Markdown("", classes="context--body-markdown")
        self._body_scroll = VerticalScroll(self.body, classes="context--body")

    def compose(self) -> ComposeResult:
        yield self._summary
        yield self._empty
        yield self._list
        yield self._body_scroll
        yield self._memory  # last: reads as its own section, not as the selected body

    def on_mount(self) -> None:
        self._render_view()

    @property
    def view(self) -> InjectionView:
        return self._view

    def show(self, view: InjectionView) -> None:
        """Replace the panel's contents with the latest injection report."""
        self._view = view
        if self.is_mounted:
            self._render_view()

    def clear(self) -> None:
        self.show(InjectionView())

    def set_memory(self, notes: list[str]) -> None:
        """Long-term memory changed (/remember, /memory delete): the count is live."""
        self._view = replace(self._view, memory=tuple(notes))
        if self.is_mounted:
            self._render_memory()

    def _render_view(self) -> None:
        view = self._view
        self._summary.update(
            Content.assemble(
                f"System prompt ≈ {fmt_tokens(view.prompt_tokens)} tokens",
                Content.styled(" · ", "$foreground-muted"),
                f"catalog ≈ {fmt_tokens(view.catalog_tokens)} tokens",
            )
        )
        self._list.clear_options()
        self._list.add_options(
            Option(injection_prompt(row), id=f"injected-{i}") for i, row in enumerate(view.skills)
        )
        has_skills = bool(view.skills)
        self._empty.display = not has_skills
        self._list.display = has_skills
        self._body_scroll.display = has_skills

        self._render_memory()

        if has_skills:
            self._list.highlighted = 0
        self._show_body(0 if has_skills else None)

    def _render_memory(self) -> None:
        notes = self._view.memory
        memory = Content.styled(f"Long-term memory ({len(notes)})", "bold")
        for entry in notes:
            memory = memory.append("\n").append(
                Content.assemble(Content.styled("• ", "$accent"), entry))
        self._memory.update(memory)

    def _show_body(self, index: int | None) -> None:
        skills = self._view.skills
        row = skills[index] if index is not None and 0 <= index < len(skills) else None
        text = row.body if row else ""
        self._body_scroll.border_title = f"{row.name} · {reason_label(row.reason)}" if row else ""
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
