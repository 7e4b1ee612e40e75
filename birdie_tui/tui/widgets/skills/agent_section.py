"""The sidebar's "Agents" section, under the skills: one row per sub-agent with its on/off mark
(a click, Enter or Space toggles it for the session), the highlighted agent's description, and
the agent files that could not be read (path:line — message).

Like the skill list it never owns the truth: a toggle flips the mark at once and posts
`AgentSection.Toggled`; the screen asks the door (`set_agent`) and the door's `agents` event
brings the real rows back through `set_agents`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.screen_text import clean, one_line
from birdie_tui.tui.widgets.skills.broken_files import BrokenFiles
from birdie_tui.tui.widgets.skills.skill_item import MARK_OFF, MARK_ON

if TYPE_CHECKING:
    from birdie_tui.service.rows import AgentRow, BrokenAgentFile

NAME_WIDTH = 20


def agent_prompt(row: AgentRow) -> Content:
    """One row: the mark and the name (a Markdown agent file is tagged `md`)."""
    name = row.name if len(row.name) <= NAME_WIDTH else row.name[:NAME_WIDTH - 1] + "…"
    mark = Content.styled(MARK_ON, "$success") if row.enabled else Content(MARK_OFF)
    tag = Content.styled(" md", "$foreground-muted") if row.format == "markdown" else Content()
    return Content.assemble(mark, " ", Content(clean(name)), tag)


def agent_details(row: AgentRow) -> str:
    """What the tooltip and the description line say of one agent."""
    lines = [f"{row.name} — {'on' if row.enabled else 'off'} for this session",
             one_line(row.description) or "(no description)"]
    if row.inputs:
        lines.append("inputs: " + ", ".join(row.inputs))
    if row.skills:
        lines.append("skills: " + ", ".join(row.skills))
    if row.model:
        lines.append(f"model: {row.model}")
    if row.path:
        lines.append(row.path)
    return "\n".join(lines)


class AgentSection(Vertical):
    """Sub-agents in the sidebar; hidden while there are neither agents nor broken files."""

    DEFAULT_CSS = """
    AgentSection {
        height: auto;
        max-height: 40%;
        display: none;
        & > .agents--title {
            height: 1;
            padding: 0 1;
            background: $panel;
            color: $foreground;
        }
        & > .agents--list {
            height: auto;
            max-height: 10;
            background: $surface;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            &:focus { background-tint: $primary 5%; }
        }
        & > .agents--about {
            height: auto;
            max-height: 3;
            padding: 0 1;
            color: $text-muted;
        }
    }
    """

    BINDINGS = [
        Binding("space", "toggle_highlighted", "Toggle agent", id="agents.toggle", show=False),
    ]

    class Toggled(Message):
        """The user asked to turn a sub-agent on or off for this session."""

        def __init__(self, name: str, enabled: bool) -> None:
            super().__init__()
            self.name = name
            self.enabled = enabled

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rows: list[AgentRow] = []
        self._broken: list[BrokenAgentFile] = []
        self._title = Static("Agents", classes="agents--title")
        # `skills--list`: the screen leaves Space to it, as to the skill list.
        self._list = OptionList(classes="agents--list skills--list", compact=True)
        self._about = Static("", classes="agents--about", markup=False)
        self._broken_files = BrokenFiles("Broken agent files")

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._list
        yield self._about
        yield self._broken_files

    @property
    def rows(self) -> list[AgentRow]:
        return list(self._rows)

    @property
    def broken_count(self) -> int:
        return self._broken_files.count

    @property
    def about_text(self) -> str:
        return str(self._about.render())

    def focus_list(self) -> None:
        if self._list.display:
            self._list.focus()

    def set_agents(self, rows: list[AgentRow], broken: list[BrokenAgentFile]) -> None:
        """The door's truth, keeping the highlighted agent."""
        index = self._list.highlighted
        keep = self._rows[index].name if index is not None and index < len(self._rows) else None
        self._rows, self._broken = list(rows), list(broken)
        self.display = bool(rows or broken)
        self._list.clear_options()
        self._list.add_options(Option(agent_prompt(r)) for r in self._rows)
        self._list.display = bool(rows)
        names = [r.name for r in rows]
        if names:
            self._list.highlighted = names.index(keep) if keep in names else 0
        on = sum(1 for r in rows if r.enabled)
        title = Content.assemble(Content.styled("Agents", "bold"),
                                 Content.styled(f"  {on}/{len(rows)} on", "$foreground-muted"))
        if broken:
            title = title.append(Content.styled(f"  ⚠ {len(broken)}", "$warning"))
        self._title.update(title)
        self._broken_files.show(self._broken)
        self._show_about()

    def action_toggle_highlighted(self) -> None:
        index = self._list.highlighted
        if index is None or not (0 <= index < len(self._rows)):
            return
        row = self._rows[index]
        flipped = replace(row, enabled=not row.enabled)
        self._rows[index] = flipped
        self._list.replace_option_prompt_at_index(index, agent_prompt(flipped))
        self._show_about()
        self.post_message(self.Toggled(row.name, flipped.enabled))

    def _show_about(self) -> None:
        index = self._list.highlighted
        if index is None or not (0 <= index < len(self._rows)):
            self._about.update("")
            self._list.tooltip = None
            return
        row = self._rows[index]
        self._about.update(one_line(row.description))
        self._list.tooltip = agent_details(row)  # hover: the whole story

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_about()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # Enter and a click both toggle, like a checkbox
        self.action_toggle_highlighted()
