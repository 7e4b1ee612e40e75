"""ctrl+f: find text in the conversation. A bar above the chat; typing finds the matches
(`widgets/chat/search.py`: plain text, case-insensitive, over the texts the entries keep) and
jumps to the newest; Enter or ↓ goes to the next (downwards), shift+Enter or ↑ to the previous,
both wrapping; Esc closes it and gives the keyboard back to the composer.

The current match's entry is brought into view (folded entries shown again, a collapsed tool
or agent block opened; a long entry scrolled to about where the match is in its text) and
marked as a whole (`-search-hit`: a tinted background and a bar on its left), which needs no
re-render of its text; "N of M" counts every occurrence.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Static

from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.chat.search import Hits, TextCache, find, offset_of

HIT_CLASS = "-search-hit"


class SearchBar(Horizontal):
    """Hidden until `open`; the screen mounts it with id="search" above the chat."""

    DEFAULT_CSS = """
    SearchBar {
        display: none;
        height: auto;
        background: $surface;
        &.-open { display: block; }
        & > Input { width: 1fr; border: tall $primary; }
        & > #search-count { width: auto; min-width: 12; padding: 1 1; color: $text-muted; }
    }
    """

    BINDINGS = [
        Binding("down", "step(1)", "Next match", id="search.next", show=False),
        Binding("up,shift+enter", "step(-1)", "Previous match", id="search.previous",
                show=False),
        Binding("escape", "close", "Close search", id="search.close", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._cache = TextCache()
        self._current: tuple[Widget, int] | None = None  # the entry, its which-th match
        self.count_text = ""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="find in the conversation (Enter next · ↑ previous · Esc close)",
                    id="search-input", select_on_focus=True)
        yield Static("", id="search-count", markup=False)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    @property
    def current(self) -> Widget | None:
        """The entry of the current match (None: no match)."""
        return self._current[0] if self._current is not None else None

    def open(self) -> None:
        """Show the bar and focus it; a query kept from before is searched again."""
        self.add_class("-open")
        field = self.query_one(Input)
        field.focus()
        if field.value:
            field.select_all()
            self._search()

    def action_close(self) -> None:
        self.remove_class("-open")
        self._mark(None)
        self._say("")
        self.screen.query_one("#composer").focus()

    def _chat(self) -> ChatLog:
        return self.screen.query_one(ChatLog)

    def _hits(self) -> Hits:
        return find(self._chat().search_entries(), self.query_text, self._cache)

    @on(Input.Changed, "#search-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._search()

    @on(Input.Submitted, "#search-input")
    def _entered(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(1)

    def _search(self) -> None:
        """A new query: the newest match (nearest to where the reader was)."""
        hits = self._hits()
        self._go(hits, hits.total - 1)

    def action_step(self, delta: int) -> None:
        """The next (1) or previous (-1) match, wrapping; the log may have changed since."""
        hits = self._hits()
        if not hits.total:
            self._go(hits, -1)
            return
        start = None
        if self._current is not None:
            first = hits.first_of(self._current[0])
            if first is not None:
                count = hits.counts[hits.entries.index(self._current[0])]
                start = first + min(self._current[1], count - 1)
        number = (hits.total - 1 if delta < 0 else 0) if start is None \
            else (start + delta) % hits.total
        self._go(hits, number)

    def _go(self, hits: Hits, number: int) -> None:
        if number < 0 or not hits.total:
            self._mark(None)
            self._say("no matches" if self.query_text else "")
            return
        entry, which = hits.locate(number)
        self._mark((entry, which))
        offset, length = offset_of(entry, self.query_text, which, self._cache)
        self._chat().reveal(entry, fraction=offset / length if length else 0.0)
        self._say(f"{number + 1} of {hits.total}")

    def _mark(self, current: tuple[Widget, int] | None) -> None:
        if self._current is not None and (current is None or current[0] is not self._current[0]):
            self._current[0].remove_class(HIT_CLASS)
        self._current = current
        if current is not None:
            current[0].add_class(HIT_CLASS)

    def _say(self, text: str) -> None:
        self.count_text = text
        self.query_one("#search-count", Static).update(text)
