"""A reply's lists, updated in place while they stream.

Textual's Markdown re-parses its last block on every append; when that block is a list, its
`_update_from_block` removes the mounted list and mounts the new one: a bullet, a row and a
column for every item, styled and laid out again, 10-17 ms a flush for a list of a dozen items
while a model streams it (bench/RESULTS.md §42). A list that is still the same kind keeps its
widgets here: each item row whose paragraphs are unchanged stays as it is, a changed paragraph
gets its new content (as Textual's own paragraph update does), a row whose blocks changed shape
(a nested list, a code block) gets new blocks, and new items get new rows.
"""

from __future__ import annotations

from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets._markdown import (MarkdownBlock, MarkdownBullet, MarkdownBulletList,
                                       MarkdownList, MarkdownListItem, MarkdownOrderedList,
                                       MarkdownOrderedListItem, MarkdownParagraph)


def _same(a: Content, b: Content) -> bool:
    return a.plain == b.plain and a.spans == b.spans  # Content's == compares the text only


def ordered_symbols(items: list[MarkdownListItem]) -> list[str]:
    """The bullets `MarkdownOrderedList.compose` gives these items."""
    start = 1
    if items and isinstance(items[0], MarkdownOrderedListItem):
        try:
            start = int(items[0].bullet)
        except ValueError:
            pass
    numbers = [f"{number}. " for number in range(start, start + len(items))]
    size = max(len(n) for n in numbers)
    return [n.rjust(size + 1) for n in numbers]


class _ListInPlace(MarkdownList):
    """The update shared by both kinds of list (see the module)."""

    def _symbols(self, items: list[MarkdownListItem]) -> list[str]:
        return [item.bullet for item in items]

    def _rows(self) -> list[tuple[MarkdownBullet, Vertical]] | None:
        """Each mounted item's bullet and column, or None if the list is not as compose made
        it (then Textual's update, a new list, is the safe one)."""
        rows = []
        for row in self.children:
            parts = row.children if isinstance(row, Horizontal) else ()
            if len(parts) != 2 or not isinstance(parts[0], MarkdownBullet) \
                    or not isinstance(parts[1], Vertical):
                return None
            rows.append((parts[0], parts[1]))
        return rows

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        rows = self._rows() if type(block) is type(self) and self.is_mounted else None
        items = [item for item in block._blocks if isinstance(item, MarkdownListItem)]
        if not rows or len(items) != len(block._blocks) or len(items) < len(rows):
            await super()._update_from_block(block)
            return
        self._copy_context(block)
        symbols = self._symbols(items)
        for (bullet, column), item, symbol in zip(rows, items, symbols):
            if bullet.symbol != symbol:
                bullet.symbol = symbol
                bullet.refresh(layout=True)  # an ordered list's numbers may widen
            await _update_column(column, item._blocks)
        added = [Horizontal(_bullet(symbol), Vertical(*item._blocks))
                 for item, symbol in zip(items[len(rows):], symbols[len(rows):])]
        if added:
            await self.mount_all(added)


async def _update_column(column: Vertical, blocks: list[MarkdownBlock]) -> None:
    """An item's column made to show `blocks`: paragraphs updated in place where the column
    holds as many paragraphs, new blocks otherwise."""
    old: list[Widget] = list(column.children)
    if len(old) == len(blocks) and all(isinstance(w, MarkdownParagraph) for w in old) \
            and all(isinstance(b, MarkdownParagraph) for b in blocks):
        for widget, new in zip(old, blocks):
            assert isinstance(widget, MarkdownParagraph)
            widget.source_range = new.source_range  # as a new block would have it
            if not _same(widget._content, new._content):
                await widget._update_from_block(new)
            else:
                widget._copy_context(new)
        return
    await column.remove_children()
    await column.mount_all(blocks)


def _bullet(symbol: str) -> MarkdownBullet:
    bullet = MarkdownBullet()
    bullet.symbol = symbol
    return bullet


# Textual's list first: a widget's CSS type names follow its first base (the rows' `height:
# auto` is scoped to MarkdownBulletList); the update still comes from _ListInPlace.
class ReplyBulletList(MarkdownBulletList, _ListInPlace):
    """Textual's bullet list, updated in place while it streams."""


class ReplyOrderedList(MarkdownOrderedList, _ListInPlace):
    """Textual's numbered list, updated in place while it streams."""

    def _symbols(self, items: list[MarkdownListItem]) -> list[str]:
        return ordered_symbols(items)
