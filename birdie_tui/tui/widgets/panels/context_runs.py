"""The sub-agent runs of the shown session, under the context panel's call: picking one opens
the child's own model calls in the panel (the door's `child_contexts`), rendered like the
session's; the first row goes back to the session's calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from birdie_tui.text import counted
from birdie_tui.tui.widgets.format import fmt_tokens

if TYPE_CHECKING:
    from birdie_tui.service.rows import AgentRunRow

BACK = "↩ the session's own calls"


def run_prompt(run: AgentRunRow, shown: bool) -> Content:
    """`▸ Summarizer · turn 2 · 3 calls · ↑1.2k ↓300 · done`"""
    mark = Content.styled("▸ " if shown else "  ", "$accent")
    status = Content.styled(run.status, "$error" if run.status == "error" else "$foreground-muted")
    return Content.assemble(
        mark, Content.styled(run.agent, "bold"),
        Content.styled(f" · turn {run.turn} · {counted(run.calls, 'call')} · "
                       f"↑{fmt_tokens(run.input_tokens)} ↓{fmt_tokens(run.output_tokens)} · ",
                       "$foreground-muted"),
        status)


class AgentRuns(OptionList):
    """One row per sub-agent run (hidden while the session has none)."""

    DEFAULT_CSS = """
    AgentRuns {
        height: auto;
        max-height: 6;
        border-top: hkey $panel;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    class Picked(Message):
        """Open a child's calls (`child`), or the session's again (`child` None)."""

        def __init__(self, child: str | None, agent: str) -> None:
            super().__init__()
            self.child = child
            self.agent = agent

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(compact=True, **kwargs)
        self.runs: list[AgentRunRow] = []
        self.shown: str | None = None  # the child whose calls the panel shows

    def set_runs(self, runs: list[AgentRunRow], shown: str | None) -> None:
        self.runs, self.shown = list(runs), shown
        self.clear_options()
        options = [Option(run_prompt(run, run.child == shown)) for run in self.runs]
        if shown is not None:
            options.insert(0, Option(Content.styled(BACK, "$accent")))
        self.add_options(options)
        self.display = bool(self.runs)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index - (1 if self.shown is not None else 0)
        if index < 0:
            self.post_message(self.Picked(None, ""))
        elif index < len(self.runs):
            run = self.runs[index]
            self.post_message(self.Picked(run.child, run.agent))

    @on(OptionList.OptionHighlighted)
    def _moved(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()  # not the panel's segment list
