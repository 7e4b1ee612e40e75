"""The skills sidebar: which skills exist, which are on for this session, and which are broken;
under them the sub-agents (`agent_section.py`).

The sidebar never owns the truth. A toggle flips the mark at once (so the click feels
instant) and posts `SkillSidebar.Toggled`; the app applies it to the engine and calls
`set_skills` again with the real state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from birdie_tui.text import counted
from birdie_tui.tui.widgets.skills.agent_section import AgentSection
from birdie_tui.tui.widgets.skills.broken_files import BrokenFiles
from birdie_tui.tui.widgets.skills.skill_item import skill_details, skill_prompt

if TYPE_CHECKING:
    from birdie_tui.service.rows import AgentRow, BrokenAgentFile, BrokenSkillFile, SkillRow


class SkillSidebar(Vertical):
    """Keyboard- and mouse-driven skill list with a details pane and the broken files."""

    DEFAULT_CSS = """
    SkillSidebar {
        width: 32;
        height: 1fr;
        background: $surface;
        & > .skills--title {
            height: 1;
            padding: 0 1;
            background: $panel;
            color: $foreground;
            text-style: bold;
        }
        & > .skills--list {
            height: auto;
            max-height: 60%;
            background: $surface;
            /* a squeezed sidebar cuts a row with … rather than folding it in two */
            text-wrap: nowrap;
            text-overflow: ellipsis;
            &:focus { background-tint: $primary 5%; }
        }
        & > .skills--details-scroll {
            height: 1fr;
            min-height: 4;
            border-top: hkey $panel;
            padding: 0 1;
        }
        & > .skills--details-scroll > .skills--details { color: $foreground; }
        & > .skills--empty { color: $text-muted; padding: 0 1; }
    }
    """

    BINDINGS = [
        Binding("space", "toggle_highlighted", "Toggle skill", id="skills.toggle", show=False),
    ]

    class Toggled(Message):
        """The user asked to turn a skill on or off for this session."""

        def __init__(self, name: str, enabled: bool, sidebar: SkillSidebar | None = None) -> None:
            super().__init__()
            self.name = name
            self.enabled = enabled
            self.sidebar = sidebar

        @property
        def control(self) -> SkillSidebar | None:
            return self.sidebar

        def __repr__(self) -> str:
            return f"SkillSidebar.Toggled(name={self.name!r}, enabled={self.enabled!r})"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rows: list[SkillRow] = []
        self._broken: list[BrokenSkillFile] = []
        self._title = Static("Skills", classes="skills--title")
        self._list = OptionList(classes="skills--list", compact=True)
        self._empty = Static("No skills found.", classes="skills--empty")
        self._details = Static(classes="skills--details")
        self._details_scroll = VerticalScroll(self._details, classes="skills--details-scroll")
        self._broken_files = BrokenFiles()
        self.agents = AgentSection(classes="skills--agents")

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._list
        yield self._empty
        yield self.agents
        yield self._details_scroll
        yield self._broken_files

    def on_mount(self) -> None:
        self._render_all(keep=None, scroll_y=0)

    # -- public API ---------------------------------------------------------------------------

    @property
    def rows(self) -> list[SkillRow]:
        """The rows as currently shown (including an optimistic, not yet confirmed toggle)."""
        return list(self._rows)

    @property
    def highlighted_name(self) -> str | None:
        index = self._list.highlighted if self.is_mounted else None
        return self._rows[index].name if index is not None and index < len(self._rows) else None

    def set_skills(self, rows: list[SkillRow], broken: list[BrokenSkillFile]) -> None:
        """Show the engine's truth, keeping the highlighted skill and the scroll position."""
        if self.is_mounted and list(rows) == self._rows and list(broken) == self._broken:
            return  # shown already (the list rebuilt with the same rows draws the same cells)
        keep = self.highlighted_name
        scroll_y = self._list.scroll_y if self.is_mounted else 0
        self._rows = list(rows)
        self._broken = list(broken)
        if self.is_mounted:
            self._render_all(keep=keep, scroll_y=scroll_y)

    def set_agents(self, rows: list[AgentRow], broken: list[BrokenAgentFile]) -> None:
        """The sub-agents section under the skills (see `AgentSection`)."""
        self.agents.set_agents(rows, broken)

    def focus_list(self) -> None:
        """Give the list the keyboard (a click never does: the composer keeps typing)."""
        if self._list.display:
            self._list.focus()

    def action_toggle_highlighted(self) -> None:
        index = self._list.highlighted
        if index is None or not (0 <= index < len(self._rows)):
            return
        row = self._rows[index]
        flipped = replace(row, enabled=not row.enabled)
        self._rows[index] = flipped
        self._list.replace_option_prompt_at_index(index, skill_prompt(flipped, self._name_width()))
        self._update_title()
        self._update_details()
        self.post_message(self.Toggled(row.name, flipped.enabled, self))

    # -- rendering ----------------------------------------------------------------------------

    def _name_width(self) -> int:
        longest = max((len(r.name) for r in self._rows), default=4)
        return max(4, min(13, longest))

    def _render_all(self, keep: str | None, scroll_y: float) -> None:
        old_index = self._list.highlighted
        width = self._name_width()
        self._list.clear_options()
        # Options carry no ids: two skills sharing a name must not crash the list.
        self._list.add_options(Option(skill_prompt(r, width)) for r in self._rows)
        has_rows = bool(self._rows)
        self._list.display = has_rows
        self._empty.display = not has_rows
        self._details_scroll.display = has_rows
        if has_rows:
            names = [r.name for r in self._rows]
            if keep in names:
                index = names.index(keep)
            else:
                index = min(old_index or 0, len(names) - 1)
            self._list.scroll_to(y=scroll_y, animate=False, immediate=True, force=True)
            self._list.highlighted = index
        self._update_title()
        self._update_details()
        self._broken_files.show(self._broken)

    def _update_title(self) -> None:
        on = sum(1 for r in self._rows if r.enabled)
        # A file that broke after loading is both a row error and a broken file: count it once.
        # A new broken file has no row at all, so without the files it would count for nothing.
        warn = len(self._broken) + sum(1 for r in self._rows
                                       if r.error and not r.error.startswith("file broken"))
        title = Content.assemble(
            Content.styled("Skills", "bold"),
            Content.styled(f"  {on}/{len(self._rows)} on", "$foreground-muted"),
        )
        if warn:
            title = title.append(Content.styled(f"  ⚠ {warn}", "$warning"))
        self._title.update(title)
        self._title.tooltip = (f"{counted(len(self._broken), 'broken skill file')}, listed at the bottom"
                               if self._broken else None)

    def _update_details(self) -> None:
        index = self._list.highlighted
        if index is None or not (0 <= index < len(self._rows)):
            self._details.update("")
            self._details_scroll.tooltip = None
            return
        row = self._rows[index]
        self._details.update(skill_details(row))
        # A short terminal can squeeze the details pane; the tooltip always has it all.
        self._details_scroll.tooltip = skill_details(row)

    # -- events -------------------------------------------------------------------------------

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._update_details()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        # Enter and a click both arrive here: both toggle, like a checkbox.
        event.stop()
        self.action_toggle_highlighted()
