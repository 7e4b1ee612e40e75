"""One layout pass per change, not two: a Textual fix carried as a context manager.

`Screen._refresh_layout` places every widget, then tells each resized one its new size with
`Widget._size_updated(..., layout=True)`. That assigns the `virtual_size` reactive, which is
declared `layout=True`: each resized widget asks for *another* layout and repaint. The second
pass finds nothing to move, yet it reflows the whole screen and paints the chat again. While a
reply streams, every flush grows a paragraph, so every flush cost two full frames (measured:
19 layouts a second at 10 flushes a second; bench/RESULTS.md §19).

The pass has just placed everything with the new sizes, and its scroll-only branch already
records them quietly (`layout=False`). `SettledScreen` (MainScreen's base) makes the full branch
do the same:
while it runs, setting `virtual_size` neither relayouts nor repaints (a resized widget is still
marked dirty by `_size_updated` and painted in the same pass). Upstream, the fix is one
argument: `widget._size_updated(region.size, virtual_size, container_size, layout=False)` in
the full branch of `Screen._refresh_layout`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive
from textual.screen import Screen, ScreenResultType
from textual.widget import Widget


def _virtual_size() -> Reactive[Any]:
    descriptor = Widget.__dict__["virtual_size"]
    assert isinstance(descriptor, Reactive)
    return descriptor


@contextmanager
def settled_sizes() -> Iterator[None]:
    """While a layout pass runs: recording a widget's virtual size asks for no new pass."""
    reactive = _virtual_size()
    saved = reactive._layout, reactive._repaint
    reactive._layout = reactive._repaint = False
    try:
        yield
    finally:
        reactive._layout, reactive._repaint = saved


class SettledScreen(Screen[ScreenResultType]):
    """A screen whose layout passes settle sizes in one go (see the module)."""

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        with settled_sizes():
            super()._refresh_layout(size, scroll)
