"""A thin list above the composer, hidden while empty: one line per item, each led by a ✕
that runs a screen action with the item's index (what queued messages and outputs waiting
for the next message share)."""

from __future__ import annotations

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static


class StripBar(Vertical):
    DEFAULT_CSS = """
    StripBar { height: auto; max-height: 6; display: none; padding: 0 1; }
    StripBar.-some { display: block; }
    StripBar > Static { height: 1; color: $text-muted; }
    """

    def show_lines(self, lines: list[Content], drop_action: str) -> None:
        """Show `lines`, each after a ✕ that runs `screen.<drop_action>(index)`."""
        self.remove_children()
        self.set_class(bool(lines), "-some")
        for index, line in enumerate(lines):
            self.mount(Static(Content.assemble(
                Content.from_markup(f"[@click=screen.{drop_action}({index})]✕[/]"), line)))
