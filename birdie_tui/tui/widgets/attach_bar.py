"""What goes with the next message: the output of each `!command` run since the last one,
listed above the composer (`✕` drops one). Sent, each becomes a fenced block before the
message's text, so the model reads what the user saw."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content

from birdie_tui.screen_text import literal
from birdie_tui.text import counted
from birdie_tui.tui.widgets.strip_bar import StripBar

LIMIT = 16 * 1024  # characters of one output sent with a message (its tail beyond it is cut)


@dataclass(frozen=True)
class Attached:
    command: str
    output: str
    error: bool

    def block(self) -> str:
        text = self.output if len(self.output) <= LIMIT else (
            self.output[:LIMIT] + f"\n… ({len(self.output) - LIMIT:,} more characters not sent)")
        fence = "````" if "```" in text else "```"
        state = "failed" if self.error else "ran"
        return f"I {state} `{self.command}` in the terminal; its output:\n{fence}\n{text.rstrip()}\n{fence}"


class AttachBar(StripBar):

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Attached] = []

    def add(self, entry: Attached) -> None:
        self.entries.append(entry)
        self._show()

    def drop(self, index: int) -> None:
        if 0 <= index < len(self.entries):
            del self.entries[index]
            self._show()

    def take_all(self) -> str:
        """The blocks to send before the next message (and the bar emptied)."""
        blocks, self.entries = [e.block() for e in self.entries], []
        self._show()
        return "\n\n".join(blocks)

    def _show(self) -> None:
        self.show_lines([Content.assemble(
            (" with your next message  ", "bold"), "!", literal(entry.command),
            f"  ({counted(len(entry.output.splitlines()), 'line')})")
            for entry in self.entries], "attach_drop")
