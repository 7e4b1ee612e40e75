"""Entries far above the view, folded into one blank of the same height while the chat follows.

Every full layout places each displayed widget, however far off screen: at a few hundred turns
that walk, not the new text, is what a streamed frame costs. While the chat follows the bottom,
entries more than `KEEP_SCREENS` screens above the view are hidden (`display: none`, still
mounted, so nothing is rebuilt) and one `FoldedSpace` of their summed height stands in for them:
the scrollbar and the scroll range stay as they were. Once the reader scrolls towards it, or the
width changes (heights would be stale), everything is shown again in one step.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.geometry import Size
from textual.widget import Widget

KEEP_SCREENS = 2  # screens of entries kept displayed above the view
MIN_FOLD = 6  # fewer newly foldable entries than this: not worth a layout of their own


class FoldedSpace(Widget):
    """A blank as tall as the entries it stands in for."""

    DEFAULT_CSS = """
    FoldedSpace { height: auto; margin: 0; padding: 0; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.lines = 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.lines

    def resize(self, lines: int) -> None:
        self.lines = lines
        self.clear_cached_dimensions()
        self.refresh(layout=True)


class Fold:
    """The folded prefix of a scrolling log: which entries are hidden, and their heights."""

    def __init__(self, log: Widget) -> None:
        self._log = log
        self._space: FoldedSpace | None = None
        self._heights: dict[Widget, int] = {}  # folded entry -> lines from its top to the next's
        self._width = 0

    @property
    def space(self) -> FoldedSpace | None:
        return self._space

    @property
    def width(self) -> int:
        """The log's width when the entries were measured."""
        return self._width

    @property
    def folded(self) -> int:
        return len(self._heights)

    def settled(self) -> bool:
        """Has the last layout placed the blank at its current height? The chat's stream layout
        keeps a child's old placement until that child's own layout request arrives, which may
        come a pass after its hidden siblings': positions read in between are not to be trusted."""
        return self._space is None or self._space.virtual_region.height == self._space.lines

    def near(self) -> bool:
        """Is the view within a screen of the folded space (time to show it all again)?"""
        if self._space is None:
            return False
        log = self._log
        return log.scroll_y < self._space.lines + log.scrollable_content_region.height

    def foldable(self, entries: list[Widget]) -> list[Widget]:
        """The displayed entries (in order, top first) whose bottom is more than `KEEP_SCREENS`
        screens above the view, or none if fewer than `MIN_FOLD`."""
        log = self._log
        view = log.scrollable_content_region.height
        if view <= 0 or not self.settled() or (self._heights and log.size.width != self._width):
            return []
        limit = log.scroll_y - KEEP_SCREENS * view
        shown = [entry for entry in entries if entry.display]
        count = 0
        while count + 1 < len(shown) and shown[count + 1].virtual_region.y <= limit:
            count += 1
        return shown[:count] if count >= MIN_FOLD else []

    async def fold(self, far: list[Widget], entries: list[Widget]) -> None:
        """Hide `far` (what `foldable(entries)` found), and stand the blank in for it."""
        if not far:
            return
        shown = [entry for entry in entries if entry.display]
        after = shown[len(far)]  # the first entry left displayed
        tops = [entry.virtual_region.y for entry in [*far, after]]
        if self._space is None:
            self._space = FoldedSpace()
            await self._log.mount(self._space, before=far[0])
        for index, entry in enumerate(far):
            self._heights[entry] = tops[index + 1] - tops[index]
            entry.display = False
        self._width = self._log.size.width
        self.refit()

    def refit(self) -> None:
        """Size the blank so the entry below it sits where it would with every entry shown.

        Reads margins, not positions, so it holds whatever the layout has done so far. The
        stream layout puts a child at the larger of its top margin and the bottom margin above
        it (a first child at its top margin). The blank has no margins: it takes the first
        folded entry's lead over the sibling above, and gives back the top margin of the entry
        below, which now only adds to the blank's bottom."""
        space = self._space
        if space is None:
            return
        shown = [child for child in self._log.children if child.display]
        index = shown.index(space)
        lines = sum(self._heights.values())
        if self._heights:
            first_top = next(iter(self._heights)).styles.margin.top
            if index:
                above_bottom = shown[index - 1].styles.margin.bottom
                lines += max(first_top, above_bottom) - above_bottom
            else:
                lines += first_top
            if index + 1 < len(shown):
                lines -= shown[index + 1].styles.margin.top
        space.resize(max(lines, 0))

    def unfold(self) -> None:
        """Show every folded entry again and drop the blank."""
        if self._space is None and not self._heights:
            return
        for entry in self._heights:
            entry.display = True
        self._heights.clear()
        space, self._space = self._space, None
        if space is not None:
            space.remove()

    def forget(self, widgets: Iterable[Widget]) -> None:
        """Entries about to be removed: their lines leave the blank with them."""
        dropped = [self._heights.pop(widget) for widget in widgets if widget in self._heights]
        if dropped:
            self.refit()

    def reset(self) -> None:
        """The log was cleared (the blank went with it)."""
        self._heights.clear()
        self._space = None
