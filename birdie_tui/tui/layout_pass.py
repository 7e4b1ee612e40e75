"""One layout pass per change, painted in one frame: two Textual fixes carried by a screen.

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

Second: the same pass moves the scrollbars of every container it resized or scrolled
(`_scroll_update` sets their sizes and position and calls `refresh()`). A refresh reaches the
screen as an `Update` message, after the pass has painted, so each scrollbar move was a frame of
its own: the compositor rendered every widget under the scrollbar's rows again (the whole chat
column, full height) to draw a 2-cell strip, ~10 extra frames a second while a reply streams
(bench/RESULTS.md §24). The settled screen's pass paints, with what it changed, every visible
widget the pass marked for repaint; their `Update` messages then find nothing left to draw.
Upstream, the fix is one line before the pass's paint in `Screen._refresh_layout`:
`compositor.update_widgets({w for w in compositor.visible_widgets if w._repaint_regions})`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from textual._compositor import ChopsUpdate, Compositor
from textual.css.scalar import Scalar, Unit
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import ScreenResultType
from textual.strip import Strip
from textual.widget import Widget

from birdie_tui.tui.frame_timing import FrameTimedScreen
from birdie_tui.tui.paint import JoinedChopsUpdate, render_chops


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


def marked_in_pass(compositor: Compositor) -> set[Widget]:
    """The visible widgets with a repaint still pending: in a pass, those the pass marked."""
    return {widget for widget in compositor.visible_widgets if widget._repaint_regions}


def forget_drawn(compositor: Compositor) -> None:
    """Repaints asked for before a paint that drew them: dropped, not sent to the screen.

    A widget's `refresh()` reaches the screen as an `Update` message at the widget's next idle
    moment. When a paint has already drawn what it asked for (a layout pass paints the
    scrollbars it moved, bench/RESULTS.md §24), that message came after the frame and gave the
    screen a compositor refresh with nothing left to draw: ~9 a second while a reply streams
    (bench/RESULTS.md §35). An `Update` only draws the widget's repaint regions; with none
    left it draws nothing, so it is not sent. A refresh after this paint asks again."""
    for widget in compositor.visible_widgets:
        if widget._repaint_required and not widget._repaint_regions:
            widget._repaint_required = False


class CroppedCompositor(Compositor):
    """A compositor that renders, for an update, only what the update can show.

    `Compositor._get_renders` picks the widgets to render by their clip (the parent's visible
    area), not by what of them is visible, and renders each one's whole visible height: a paint
    of the chat's rows rendered the sidebar (38 rows), the composer, the footer and the status
    bar too, and the screen and its containers at full height, only for `_render_chops` to drop
    the rows outside the update. Here a widget whose visible part misses the update is skipped
    and the others render only the update's rows (their full visible width, so the cuts are
    the same). Upstream, the same lines in `_get_renders`. Its `_render_chops` also skips the
    rows that widgets in front already cover, and its updates move the cursor only where it
    is not already (`birdie_tui.tui.paint`)."""

    def _get_renders(self, crop: Region | None = None
                     ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None:
            yield from super()._get_renders(crop)
            return
        for widget, (region, clip) in self.visible_widgets.items():
            visible = region.intersection(clip)
            if not crop.overlaps(visible):
                continue
            rows = visible.intersection(Region(visible.x, crop.y, visible.width, crop.height))
            # `rows` as the clip: `_render_chops` places the strips from region ∩ clip's top.
            yield region, rows, widget.render_lines(rows.translate(-region.offset))

    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]
                      ) -> Sequence[Mapping[int, Strip]]:
        return render_chops(self, crop, is_rendered_line)

    def render_partial_update(self) -> ChopsUpdate | None:
        update = super().render_partial_update()
        if update is None:
            return None
        return JoinedChopsUpdate(update.chops, update.spans, update.chop_ends)


class SettledScreen(FrameTimedScreen[ScreenResultType]):
    """A screen whose layout passes settle sizes in one go, paint what they mark, render only
    what an update shows (see the module and `CroppedCompositor`), and send no repaint its
    paint already drew (`forget_drawn`)."""

    _in_layout_pass = False

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name, id, classes)
        self._compositor = CroppedCompositor()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self._in_layout_pass = True
        try:
            with settled_sizes():
                super()._refresh_layout(size, scroll)
        finally:
            self._in_layout_pass = False

    def _compositor_refresh(self) -> None:
        if self._in_layout_pass:  # the pass's own paint: take the scrollbars it moved along
            self._compositor.update_widgets(marked_in_pass(self._compositor))
        super()._compositor_refresh()
        if self is self.app.screen:  # their repaint requests, now drawn, send nothing
            forget_drawn(self._compositor)


_FIXED = {Unit.CELLS, Unit.AUTO}


def _fixed(scalar: Scalar | None) -> bool:
    return scalar is None or scalar.unit in _FIXED


def arranged_size(widget: Widget, size: Size) -> Size:
    """The size to arrange `widget`'s children in: its width alone when nothing of theirs
    depends on its height.

    A pass arranges each container twice: once to learn its height (`get_content_height`, at
    height 0) and once to place its children (at that height), and Textual caches an
    arrangement by the whole size. A streamed reply and its Markdown hold every block of the
    reply, so each frame arranged them twice. When no child is docked, split or sized in
    `fr` / `%` and the container aligns to the top, the arrangement is the same at any height:
    arranging at height 0 makes the second call a cache hit."""
    styles = widget.styles
    if not size.height or styles.align_vertical != "top":
        return size
    for child in widget._nodes:
        child_styles = child.styles
        if child_styles.display == "none":
            continue
        if (child_styles.is_docked or child_styles.is_split
                or not _fixed(child_styles.height) or not _fixed(child_styles.min_height)
                or not _fixed(child_styles.max_height)):
            return size
    return Size(size.width, 0)
