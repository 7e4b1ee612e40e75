"""The session browser's list: a click picks a row, a click on the picked row opens it.

Textual's OptionList opens (selects) on the first click, which would leave a mouse user no way
to pick a row for the Rename and Delete buttons without switching to it.
"""

from __future__ import annotations

from textual import events
from textual.widgets import OptionList


class SessionList(OptionList):
    async def _on_click(self, event: events.Click) -> None:
        clicked: int | None = event.style.meta.get("option")
        if clicked is None or clicked == self.highlighted:
            return  # OptionList._on_click (next in the MRO) opens the highlighted row
        if not self.get_option_at_index(clicked).disabled:
            self.highlighted = clicked
        event.prevent_default()  # skip OptionList._on_click: this click only picks
