"""No frame that shows nothing: a new paragraph costs no second layout pass, a repaint a paint
has drawn sends no empty compositor refresh, and the screen shows what Textual's stock code
shows (bench/RESULTS.md §35)."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Markdown, Static

from birdie_tui.events import SkillsChanged, TokenStreamed, TurnDone, TurnEvent
from birdie_tui.tui import create_app
from birdie_tui.tui.layout_pass import SettledScreen, forget_drawn, marked_in_pass
from birdie_tui.tui.main_screen import MainScreen
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.reply_markdown import ReplyMarkdown
from birdie_tui.tui.widgets.chat.wrapped_paragraph import WrappedParagraph
from tests.tui.app.conftest import send, wait_for, wait_ready, wait_turn
from tests.tui.fake_door import FakeDoor

PARAGRAPHS = [f"Paragraph {n} says **something** about bird number {n}, long enough to wrap "
              "on a narrow screen once or twice.\n\n" for n in range(12)]


class Frames:
    """Counts full layout passes, compositor refreshes and the paints that drew something."""

    def __init__(self) -> None:
        self.passes = self.refreshes = self.paints = 0


class CountingScreen(SettledScreen[None]):
    frames = Frames()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        if not (scroll and not self._layout_widgets):
            self.frames.passes += 1
        super()._refresh_layout(size, scroll)

    def _compositor_refresh(self) -> None:
        self.frames.refreshes += 1
        super()._compositor_refresh()


class StockParagraph(WrappedParagraph):
    """The paragraph with Textual's own `refresh`: it asks for a layout before its mount."""

    refresh = Widget.refresh  # type: ignore[assignment]


class StockMarkdown(ReplyMarkdown):
    BLOCKS = {**ReplyMarkdown.BLOCKS, "paragraph_open": StockParagraph}


class ReplyScreen(CountingScreen):
    markdown: type[Markdown] = ReplyMarkdown

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="log"):
            yield self.markdown(id="reply")


class StockReplyScreen(ReplyScreen):
    markdown = StockMarkdown


class Host(App[None]):
    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self._first = screen

    def on_mount(self) -> None:
        self.push_screen(self._first)

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        if renderable is not None and isinstance(screen, CountingScreen):
            screen.frames.paints += 1
        super()._display(screen, renderable)


def _drawn(screen: Screen[Any]) -> list[str]:
    return ["".join(f"{segment.text}|{segment.style}" for segment in strip)
            for strip in screen._compositor.render_strips()]


async def _stream_paragraphs(screen: ReplyScreen) -> tuple[list[int], list[list[str]]]:
    """Each paragraph appended as a flush does; the full passes each cost and the screen after."""
    screen.frames = Frames()
    passes, screens = [], []
    async with Host(screen).run_test(size=(50, 16)) as pilot:
        await pilot.pause()
        markdown = screen.query_one("#reply", Markdown)
        for text in PARAGRAPHS:
            before = screen.frames.passes
            half = len(text) // 2
            for piece in (text[:half], text[half:]):  # a new paragraph, then it grows
                await markdown.append(piece)
                for _ in range(4):  # whatever the append asked for, and what that asked for
                    await pilot.pause(0.02)
                screens.append(_drawn(screen))
            passes.append(screen.frames.passes - before)
    return passes, screens


async def test_a_new_paragraph_costs_one_layout_pass_and_shows_what_textual_shows():
    """Textual's paragraph asks for a layout before it is mounted, which comes back as a second
    full pass after the mount's (it moved nothing); the reply's paragraph does not, and each
    screen along the way is the stock one's."""
    stock_passes, stock_screens = await _stream_paragraphs(StockReplyScreen())
    passes, screens = await _stream_paragraphs(ReplyScreen())
    assert screens == stock_screens
    # Two passes for each paragraph (it starts, it grows) where Textual took three (both take
    # one more when the log's scrollbar appears: that pass is needed, and the stock second
    # ask joins it).
    assert passes[1:].count(2) >= len(PARAGRAPHS) - 2, passes
    assert stock_passes[1:].count(3) >= len(PARAGRAPHS) - 2, stock_passes
    assert sum(stock_passes) - sum(passes) >= len(PARAGRAPHS) - 2


async def test_a_paragraph_asks_for_its_layout_once_mounted():
    """Only the unmounted paragraph skips its layout request: a mounted one that grows is laid
    out again (the reply would not grow on screen otherwise)."""
    screen = ReplyScreen()
    screen.frames = Frames()
    async with Host(screen).run_test(size=(50, 16)) as pilot:
        markdown = screen.query_one("#reply", Markdown)
        await markdown.append(PARAGRAPHS[0])
        await pilot.pause(0.05)
        paragraph = markdown.query_one(WrappedParagraph)
        height = paragraph.size.height
        paragraph.update(PARAGRAPHS[0] * 3)
        await pilot.pause(0.05)
        assert paragraph.size.height > height


class TailScreen(CountingScreen):
    """An anchored log whose tail grows: each pass moves the log's scrollbar."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="log"):
            yield Static("", id="tail")


class StockTailScreen(TailScreen):
    """The settled screen's paint without `forget_drawn`: the drawn repaints are sent."""

    def _compositor_refresh(self) -> None:
        self.frames.refreshes += 1
        if self._in_layout_pass:
            self._compositor.update_widgets(marked_in_pass(self._compositor))
        Screen._compositor_refresh(self)


async def _grow_tail(screen: TailScreen) -> list[str]:
    screen.frames = Frames()
    async with Host(screen).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        log = screen.query_one("#log", VerticalScroll)
        log.anchor()
        tail = screen.query_one("#tail", Static)
        tail.update("\n".join(f"line {n}" for n in range(30)))
        await pilot.pause(0.05)
        screen.frames = Frames()
        for size in range(31, 51):
            tail.update("\n".join(f"line {n}" for n in range(size)))  # the thumb moves
            for _ in range(3):
                await pilot.pause(0.02)
        assert log.scroll_y == log.max_scroll_y > 0
        return _drawn(screen)


async def test_a_repaint_the_pass_drew_sends_no_empty_refresh():
    """The pass paints the scrollbar it moved; the scrollbar's own repaint request then came
    back as a compositor refresh that drew nothing, once per pass. Dropped, with the same
    screen at the end."""
    stock_screen, screen = StockTailScreen(), TailScreen()
    stock_drawn = await _grow_tail(stock_screen)
    drawn = await _grow_tail(screen)
    assert drawn == stock_drawn
    stock, frames = stock_screen.frames, screen.frames
    assert stock.refreshes - stock.paints >= 15  # the behaviour this removes
    assert frames.refreshes == frames.paints == stock.paints


class Line(Widget):
    DEFAULT_CSS = "Line { height: 1; }"
    text = "old"

    def render(self) -> str:
        return self.text


class TwoLines(CountingScreen):
    def compose(self) -> ComposeResult:
        yield Line(id="a")
        yield Line(id="b")


async def test_a_repaint_no_paint_has_drawn_yet_is_still_sent():
    """Only what a paint drew is dropped: a widget that asked for a repaint the paint did not
    include keeps its request, and is drawn by the next frame."""
    screen = TwoLines()
    screen.frames = Frames()
    async with Host(screen).run_test(size=(20, 4)) as pilot:
        await pilot.pause()
        a, b = screen.query_one("#a", Line), screen.query_one("#b", Line)
        a.text = b.text = "new"
        a.refresh()
        b.refresh()
        screen._compositor.update_widgets({a})  # a paint of `a` alone, before `b`'s request
        screen._compositor_refresh()
        forget_drawn(screen._compositor)
        assert not a._repaint_required and b._repaint_required
        await pilot.pause(0.05)
        assert [line.split("|")[0].strip() for line in _drawn(screen)[:2]] == ["new", "new"]


def _paced_reply(text: str) -> list[TurnEvent]:
    words = "".join(PARAGRAPHS * 2).split(" ")
    return [*(TokenStreamed(word + " ") for word in words), TurnDone(text="")]


async def test_a_streamed_reply_costs_one_frame_a_flush(skills_dir, monkeypatch):
    """The real app streaming a reply of many paragraphs (a fake door paced at 150 tokens a
    second): once the reply streams, each flush is one full layout pass and its compositor
    refresh draws something."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "150")
    door = FakeDoor(script=_paced_reply)
    app = create_app(["--skills-dir", str(skills_dir)], cursor_blink=False,
                     door_factory=FakeDoor.factory(door))
    frames = Frames()
    screen_type = type(app.main)
    layout, refresh = screen_type._refresh_layout, screen_type._compositor_refresh

    def counted_layout(self: MainScreen, size: Size | None = None, scroll: bool = False) -> None:
        if not (scroll and not self._layout_widgets):
            frames.passes += 1
        layout(self, size, scroll)

    def counted_refresh(self: MainScreen) -> None:
        frames.refreshes += 1
        before = app._painted
        refresh(self)
        frames.paints += app._painted > before

    monkeypatch.setattr(screen_type, "_refresh_layout", counted_layout)
    monkeypatch.setattr(screen_type, "_compositor_refresh", counted_refresh)
    display = type(app)._display

    def counted_display(self: Any, screen: Screen[Any], renderable: Any) -> None:
        self._painted += renderable is not None
        display(self, screen, renderable)

    monkeypatch.setattr(type(app), "_painted", 0, raising=False)
    monkeypatch.setattr(type(app), "_display", counted_display)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "tell me about the birds")
        await wait_for(pilot, lambda: any(r.flush_count >= 2 for r in app.query(AssistantMessage)))
        reply = app.query_one(AssistantMessage)
        await asyncio.sleep(0.15)  # the flush's own frame is out
        start, flushes = (frames.passes, frames.refreshes, frames.paints), reply.flush_count
        deadline = asyncio.get_running_loop().time() + 15
        while reply.flush_count < flushes + 12:  # not `pilot.pause`: it forces a frame
            assert asyncio.get_running_loop().time() < deadline, "the reply stopped flushing"
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.15)
        passes, refreshes, paints = (frames.passes - start[0], frames.refreshes - start[1],
                                     frames.paints - start[2])
        flushed = reply.flush_count - flushes
        await wait_turn(pilot, app)
    # On main: about one empty refresh a flush, and one more pass for each new paragraph. (A
    # block mounted just after the flush's pass can still take a pass of its own: it draws.)
    assert refreshes - paints <= 1, (refreshes, paints)
    assert passes <= flushed + 2, (passes, flushed)


async def test_the_same_status_again_costs_no_frame(skills_dir, monkeypatch):
    """After a turn the screen is told its status, totals and skills again, mostly unchanged
    (measured: 2 status lines, 3 ledgers and the skill rows a turn): the same values cost no
    layout pass and no paint."""
    door = FakeDoor()
    app = create_app(["--skills-dir", str(skills_dir)], cursor_blink=False,
                     door_factory=FakeDoor.factory(door))
    frames = Frames()
    screen_type = type(app.main)
    layout = screen_type._refresh_layout

    def counted_layout(self: MainScreen, size: Size | None = None, scroll: bool = False) -> None:
        frames.passes += 1
        layout(self, size, scroll)

    display = type(app)._display

    def counted_display(self: Any, screen: Screen[Any], renderable: Any) -> None:
        frames.paints += renderable is not None
        display(self, screen, renderable)

    monkeypatch.setattr(screen_type, "_refresh_layout", counted_layout)
    monkeypatch.setattr(type(app), "_display", counted_display)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello")
        await wait_turn(pilot, app)
        await pilot.pause(0.2)
        frames.passes = frames.paints = 0
        app.main.show_status()
        app.main.on_skills_changed(SkillsChanged())
        for _ in range(3):
            await pilot.pause(0.05)
        assert (frames.passes, frames.paints) == (0, 0)
