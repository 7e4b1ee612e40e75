"""A layout pass settles the sizes it finds: one pass per change, not a second that moves nothing."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.widgets import Static

from birdie_tui.tui.layout_pass import SettledScreen
from birdie_tui.tui.main_screen import MainScreen


class _Counting:
    """Counts full (not scroll-only) layout passes."""

    full_passes = 0

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        if not (scroll and not self._layout_widgets):  # type: ignore[attr-defined]
            type(self).full_passes += 1
        super()._refresh_layout(size, scroll)  # type: ignore[misc]


class PlainScreen(_Counting, Screen[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="log"):
            yield Static("\n".join(f"line {n}" for n in range(20)), id="tail")


class Settled(_Counting, SettledScreen[None]):
    compose = PlainScreen.compose


class Host(App[None]):
    def __init__(self, screen: type[Screen[Any]]) -> None:
        super().__init__()
        self._screen_type = screen

    def on_mount(self) -> None:
        self.push_screen(self._screen_type())


async def _passes_for_a_growing_tail(screen: type[_Counting]) -> tuple[int, int]:
    app = Host(screen)  # type: ignore[arg-type]
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        log = app.screen.query_one("#log", VerticalScroll)
        log.anchor()  # already scrolling: a scrollbar that appears needs a pass of its own
        tail = app.screen.query_one("#tail", Static)
        await pilot.pause()
        screen.full_passes = 0
        tail.update("\n".join(f"line {n}" for n in range(30)))  # grows; the log scrolls
        await pilot.pause()
        await pilot.pause()
        assert tail.size.height == 30  # laid out at its new height...
        assert log.scroll_y == log.max_scroll_y > 0  # ...and the anchored log followed it
        return screen.full_passes, tail.size.height


async def test_a_growing_widget_costs_one_layout_pass_not_two():
    """Textual's plain screen lays out twice when a widget grows (the second pass is asked for
    by the new virtual size and moves nothing); the settled screen once, with the same result."""
    plain, _ = await _passes_for_a_growing_tail(PlainScreen)
    settled, _ = await _passes_for_a_growing_tail(Settled)
    assert plain >= 2  # the behaviour this works around (if Textual fixes it, drop the base)
    assert settled == 1


def test_the_main_screen_settles_its_layout_passes():
    """The chat's screen is one of them: a streamed flush costs one full frame."""
    assert issubclass(MainScreen, SettledScreen)


class PaintingHost(Host):
    """Counts the frames that draw something (a layout pass's paint, or one of its own)."""

    paints = 0

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        if renderable is not None:
            type(self).paints += 1
        super()._display(screen, renderable)


async def _frames_for_a_growing_tail(screen: type[Screen[None]]) -> tuple[int, list[str]]:
    app = PaintingHost(screen)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        log = app.screen.query_one("#log", VerticalScroll)
        log.anchor()
        tail = app.screen.query_one("#tail", Static)
        tail.update("\n".join(f"line {n}" for n in range(30)))  # the scrollbar appears
        await pilot.pause()
        await pilot.pause()
        PaintingHost.paints = 0
        tail.update("\n".join(f"line {n}" for n in range(60)))  # grows; the thumb moves
        await pilot.pause()
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0
        drawn = app.screen._compositor.render_strips()
        return PaintingHost.paints, [
            "".join(f"{segment.text}|{segment.style}" for segment in strip) for strip in drawn
        ]


async def test_a_pass_paints_the_scrollbar_it_moved_in_its_own_frame():
    """Textual paints a layout pass's scrollbar update in a frame of its own after the pass's
    paint (the whole scrolled column rendered again); the settled screen draws both in one
    frame, and what ends up on screen is the same."""
    plain, plain_screen = await _frames_for_a_growing_tail(PlainScreen)
    settled, settled_screen = await _frames_for_a_growing_tail(Settled)
    assert plain >= 2  # the behaviour this works around
    assert settled == 1
    assert settled_screen == plain_screen


REPLY = """# A heading

A paragraph with **bold** text and `code` that runs long enough to wrap on a narrow screen.

- a list item
- another, with a [link](https://example.com)

> a quote

```python
print("a code block")
```

| a | table |
|---|-------|
| 1 | 2     |
"""


async def test_a_reply_is_arranged_once_a_frame_where_it_was_twice():
    """A streamed reply and its Markdown were arranged twice a pass (for their height, then to
    place their blocks, at two sizes Textual caches apart); arranged by width alone, once, and
    the blocks land where Textual's own arrangement at the real height puts them."""
    import textual.widget
    from textual._arrange import arrange

    from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
    from birdie_tui.tui.widgets.chat.reply_markdown import ReplyMarkdown
    from tests.tui.chat.harness import ChatHarness

    arranged: list[str] = []

    def counting(widget, *args, **kwargs):  # type: ignore[no-untyped-def]
        arranged.append(type(widget).__name__)
        return arrange(widget, *args, **kwargs)

    app = ChatHarness()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.chat.start_reply()
        await pilot.pause()
        textual.widget.arrange = counting  # type: ignore[attr-defined]
        seen = 0
        try:
            for line in REPLY.splitlines(keepends=True):
                reply.append(line)
                arranged.clear()
                await pilot.pause(0.15)
                passes = " ".join(arranged).split("ChatLog")  # the log: once a pass
                for one_pass in passes:
                    assert one_pass.split().count("AssistantMessage") <= 1, arranged
                    assert one_pass.split().count("ReplyMarkdown") <= 1, arranged
                seen += len(passes) - 1
        finally:
            textual.widget.arrange = arrange  # type: ignore[attr-defined]
        assert seen >= 10
        await reply.finish()
        await pilot.pause()
        for widget in (reply, reply.query_one(ReplyMarkdown)):
            assert isinstance(widget, (AssistantMessage, ReplyMarkdown))
            width, height = widget.size
            assert height > 10
            ours = widget.arrange(Size(width, height))
            for at in (height, 0, 3 * height):
                stock = arrange(widget, widget._nodes, Size(width, at), app.screen.size)
                assert ours.placements == stock.placements


class SideBySide(Screen[None]):
    """A panel beside a growing log, a status line below both (as the main screen has)."""

    DEFAULT_CSS = "Horizontal { height: 1fr; } #side { width: 12; } #status { height: 1; }"

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal

        with Horizontal():
            yield Static("\n".join(f"side {n}" for n in range(12)), id="side")
            with VerticalScroll(id="log"):
                yield Static("\n".join(f"line {n}" for n in range(30)), id="tail")
        yield Static("status", id="status")


class SettledSideBySide(SettledScreen[None]):
    DEFAULT_CSS = SideBySide.DEFAULT_CSS
    compose = SideBySide.compose


async def _chat_update(screen: type[Screen[None]]) -> tuple[dict[str, int], list[str]]:
    """Rows each widget rendered for the paints of one grown, anchored log; the screen after."""
    from textual.widget import Widget

    rows: dict[str, int] = {}
    original = Widget.render_lines

    def counting(self: Widget, crop: Any) -> Any:
        rows[self.id or type(self).__name__] = rows.get(self.id or type(self).__name__, 0) \
            + crop.height
        return original(self, crop)

    app = Host(screen)
    async with app.run_test(size=(50, 12)) as pilot:
        await pilot.pause()
        log = app.screen.query_one("#log", VerticalScroll)
        log.anchor()
        await pilot.pause()
        Widget.render_lines = counting  # type: ignore[method-assign]
        try:
            app.screen.query_one("#tail", Static).update(
                "\n".join(f"line {n}" for n in range(40)))
            await pilot.pause()
            await pilot.pause()
        finally:
            Widget.render_lines = original  # type: ignore[method-assign]
        assert log.scroll_y == log.max_scroll_y > 0
        drawn = app.screen._compositor.render_strips()
        return rows, ["".join(f"{s.text}|{s.style}" for s in strip) for strip in drawn]


async def test_an_update_of_the_log_renders_nothing_beside_or_below_it():
    """Textual renders every widget whose parent's area meets an update, at its full visible
    height (the panel beside the log, the status line below); the settled screen's compositor
    renders only the widgets the update shows, and only its rows. The screen ends the same."""
    plain, plain_screen = await _chat_update(SideBySide)
    settled, settled_screen = await _chat_update(SettledSideBySide)
    assert plain.get("side", 0) > 0 and plain.get("status", 0) > 0  # what this works around
    assert settled.get("side", 0) == 0 and settled.get("status", 0) == 0
    assert settled["tail"] > 0
    assert settled_screen == plain_screen


async def test_the_cropped_compositor_draws_an_update_as_textual_s_does():
    """For updates of any part of the screen, the cropped compositor's cells are Textual's."""
    from textual._compositor import Compositor

    app = Host(SettledSideBySide)
    async with app.run_test(size=(50, 12)) as pilot:
        await pilot.pause()
        app.screen.query_one("#log", VerticalScroll).scroll_to(y=7, animate=False)
        await pilot.pause()
        compositor = app.screen._compositor
        cropped = type(compositor)
        for crop in (Region(0, 0, 50, 12), Region(20, 0, 30, 11), Region(48, 2, 2, 5),
                     Region(3, 4, 10, 1), Region(0, 11, 50, 1)):
            lines = set(crop.line_range)
            ours = compositor._render_chops(crop, lines.__contains__)
            compositor.__class__ = Compositor  # Textual's own, on the same layout
            try:
                stock = compositor._render_chops(crop, lines.__contains__)
            finally:
                compositor.__class__ = cropped
            for y in crop.line_range:
                for cut, strip in stock[y].items():
                    if crop.x <= cut < crop.right and strip is not None:
                        mine = ours[y][cut]
                        assert mine is not None and list(mine) == list(strip), (crop, y, cut)
