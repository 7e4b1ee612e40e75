"""Messages typed while a turn runs: each waits here, above the composer, and is sent when
the turn ends (Esc cancels the turn, never the queue). ↑ in an empty composer takes the last
one back to edit; a click on the ✕ before it drops it. Each message belongs to the session it was typed
in: another session shows its own queue."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content

from birdie_tui.screen_text import literal
from birdie_tui.tui.widgets.strip_bar import StripBar

PREVIEW = 100  # characters of a queued message shown on its line


@dataclass(frozen=True)
class Queued:
    session_id: str
    text: str


class QueueBar(StripBar):
    """The queued messages of the shown session (hidden while there are none)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Queued] = []
        self.session_id = ""

    def add(self, session_id: str, text: str) -> None:
        self.entries.append(Queued(session_id, text))
        self.show_for(session_id)

    def mine(self) -> list[Queued]:
        return [q for q in self.entries if q.session_id == self.session_id]

    def take_first(self) -> str | None:
        """The shown session's oldest queued message, taken off the queue (to send it)."""
        return self._take(self.mine()[:1])

    def take_last(self) -> str | None:
        """The shown session's newest queued message, taken off the queue (to edit it)."""
        return self._take(self.mine()[-1:])

    def drop(self, index: int) -> None:
        """Drop the shown session's `index`-th queued message."""
        mine = self.mine()
        if 0 <= index < len(mine):
            self._take([mine[index]])

    def _take(self, found: list[Queued]) -> str | None:
        if not found:
            return None
        self.entries.remove(found[0])
        self.show_for(self.session_id)
        return found[0].text

    def show_for(self, session_id: str) -> None:
        self.session_id = session_id
        lines = []
        for queued in self.mine():
            line = " ".join(queued.text.split())
            if len(line) > PREVIEW:
                line = line[:PREVIEW - 1] + "…"
            lines.append(Content.assemble((" queued  ", "bold"), literal(line)))
        self.show_lines(lines, "queue_drop")
