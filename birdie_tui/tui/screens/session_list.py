"""The session browser's list: a click picks a row, a click on the picked row opens it; and
thousands of rows cost what a screenful does. Also the rows' text and filter (`SessionRows`).

Textual's OptionList opens (selects) on the first click, which would leave a mouse user no way
to pick a row for the Rename and Delete buttons without switching to it.

An OptionList measures every option it holds whenever its options are set (10,000 sessions
took ~0.8 s of UI thread per filter key), so `show` makes options for the first `PAGE` rows
only (more if the highlight must start further down) and ends the list with a disabled
"… N more — type to filter" line. As the highlight or the scroll position nears that line, the
next page is added: nobody scrolls through ten thousand rows, and anyone can keep scrolling.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, overload

from textual import events
from textual.content import Content

from birdie_tui.screen_text import one_line
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from birdie_tui.service.rows import SessionRow

PAGE = 100


def format_updated(updated_at: str) -> str:
    """`YYYY-MM-DD HH:MM` as stored; no timezone conversion, so tests and snapshots are stable."""
    try:
        return datetime.fromisoformat(updated_at).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return updated_at[:16]


def format_count(n: int) -> str:
    """Token counts short enough for one row: 950, 12.3k, 4.1M."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


def row_content(row: SessionRow) -> Content:
    """One option's text; built from Content pieces so a title with `[` is never markup."""
    turns = f"{row.turns} turn" if row.turns == 1 else f"{row.turns} turns"
    sep = (" · ", "$foreground-muted")
    tokens = f"↑{format_count(row.input_tokens)} ↓{format_count(row.output_tokens)}"
    return Content.assemble(
        ("● ", "bold $accent") if row.current else "  ",
        (one_line(row.id), "bold"),
        *((sep, (f"⟳ {row.busy}", "bold $warning")) if row.busy else ()),
        sep,
        one_line(row.title),
        sep,
        (format_updated(row.updated_at), "$foreground-muted"),
        *((sep, (f"by {one_line(row.written_by)}", "$foreground-muted")) if row.written_by else ()),
        sep,
        (turns, "$foreground-muted"),
        sep,
        (tokens, "$foreground-muted"),
    )


def matches(row: SessionRow, needle: str) -> bool:
    needle = needle.casefold()
    return needle in row.id.casefold() or needle in row.title.casefold()


def option_for(row: SessionRow) -> Option:
    return Option(row_content(row), id=row.id)


class SessionRows:
    """The browser's rows, prepared off the UI thread (casefolded ids and titles, positions),
    and the ones a filter matches: a filter that only grew narrows the previous match."""

    def __init__(self, rows: list[SessionRow]) -> None:
        self.rows = rows
        # One string per row (strings cost the garbage collector nothing): a needle without
        # the separator is in the id or in the title exactly when it is in this.
        self._folded = [f"{r.id}\0{r.title}".casefold() for r in rows]
        self._positions = {r.id: i for i, r in enumerate(rows)}
        self._needle: str | None = None
        self._matched: list[int] = []
        self._options: dict[str, Option] = {}  # made once per row, reused by every filter

    def option(self, row: SessionRow) -> Option:
        option = self._options.get(row.id)
        if option is None:
            option = self._options[row.id] = option_for(row)
        return option

    def get(self, session_id: str | None) -> SessionRow | None:
        at = self._positions.get(session_id) if session_id is not None else None
        return self.rows[at] if at is not None else None

    def matching(self, needle: str) -> Matched:
        """The rows whose id or title contains ``needle``, ignoring case (`matches`)."""
        folded = needle.casefold()
        if folded != self._needle:
            keys = self._folded
            if not folded:
                self._matched = list(range(len(keys)))
            elif "\0" in folded:
                self._matched = [i for i, row in enumerate(self.rows) if matches(row, needle)]
            else:
                base = self._matched if self._needle and self._needle in folded \
                    else range(len(keys))
                self._matched = [i for i in base if folded in keys[i]]
            self._needle = folded
        return Matched(self.rows, self._matched, self._positions)

    def edited(self, session_id: str, title: str | None, *, drop: bool = False) -> SessionRows:
        """A copy with one row dropped, or retitled (a non-empty ``title``)."""
        rows = [row for row in self.rows if not (drop and row.id == session_id)]
        if title:
            rows = [replace(row, title=title) if row.id == session_id else row for row in rows]
        return SessionRows(rows)


class Matched(Sequence[SessionRow]):
    """The matched rows as a sequence, without copying ten thousand of them per key."""

    def __init__(self, rows: list[SessionRow], matched: list[int],
                 positions: dict[str, int]) -> None:
        self._rows, self._matched, self._positions = rows, matched, positions

    def __len__(self) -> int:
        return len(self._matched)

    @overload
    def __getitem__(self, index: int) -> SessionRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[SessionRow]: ...
    def __getitem__(self, index: int | slice) -> SessionRow | list[SessionRow]:
        if isinstance(index, slice):
            return [self._rows[i] for i in self._matched[index]]
        return self._rows[self._matched[index]]

    def index_of(self, session_id: str | None) -> int | None:
        """Where the row ``session_id`` is among the matched ones (None: not there)."""
        at = self._positions.get(session_id) if session_id is not None else None
        if at is None:
            return None
        found = bisect_left(self._matched, at)
        return found if found < len(self._matched) and self._matched[found] == at else None


def more_line(n: int) -> Option:
    return Option(Content.styled(f"… {n:,} more — type to filter", "$foreground-muted"),
                  disabled=True)


class SessionList(OptionList):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._items: Sequence[Any] = ()
        self._make: Callable[[Any], Option] = Option
        self._made = 0  # options made from `_items` so far (the "more" line follows them)
        self._extend_queued = False

    def show(self, items: Sequence[Any], make: Callable[[Any], Option],
             highlight: int | None = None) -> None:
        """Show ``items`` (made into options by ``make`` as they come into reach), the
        highlight on ``items[highlight]`` (None: the first)."""
        self._items, self._make = items, make
        count = min(len(items), max(self._page(), (highlight or 0) + self._page() // 2))
        self._made = count
        options = [make(item) for item in items[:count]]
        if count < len(items):
            options.append(more_line(len(items) - count))
        self.set_options(options)
        self.highlighted = min(highlight or 0, count - 1) if count else None

    def show_message(self, content: Content) -> None:
        """One disabled line instead of rows (loading, no sessions, no match)."""
        self._items, self._made = (), 0
        self.set_options([Option(content, disabled=True)])

    def _page(self) -> int:
        return max(PAGE, 3 * self.scrollable_content_region.height)

    # -- growing as the end comes into reach -----------------------------------------------

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        self._queue_extend()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._queue_extend()

    def _queue_extend(self) -> None:
        if self._made < len(self._items) and not self._extend_queued:
            self._extend_queued = True
            self.call_later(self._extend_if_near_end)

    def _extend_if_near_end(self) -> None:
        self._extend_queued = False
        if self._made >= len(self._items):
            return
        height = self.scrollable_content_region.height
        reach = max(PAGE // 2, 2 * height)
        near = (self.highlighted or 0) >= self._made - reach \
            or self.scroll_y + height >= self._made - reach
        if not near:
            return
        count = min(len(self._items), self._made + self._page())
        options = [self._make(item) for item in self._items[self._made:count]]
        if count < len(self._items):
            options.append(more_line(len(self._items) - count))
        self.remove_option_at_index(self.option_count - 1)  # the old "more" line
        self.add_options(options)
        self._made = count

    async def _on_click(self, event: events.Click) -> None:
        clicked: int | None = event.style.meta.get("option")
        if clicked is None or clicked == self.highlighted:
            return  # OptionList._on_click (next in the MRO) opens the highlighted row
        if not self.get_option_at_index(clicked).disabled:
            self.highlighted = clicked
        event.prevent_default()  # skip OptionList._on_click: this click only picks
