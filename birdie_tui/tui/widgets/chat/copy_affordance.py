"""The chat's copy affordances: "copy" on a code block's top edge, and on a reply or a user
message while the mouse is over it. A click posts `CopyText`; the screen copies and says so.

In words, not a glyph: a symbol such as ⧉ is missing from common terminal fonts.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Label, Static
from textual.widgets._markdown import MarkdownFence

from birdie_tui.tui.copying import CopyText
from birdie_tui.tui.widgets.chat.code_lines import CodeCache, CodeContent

LABEL = "copy"
LABEL_CELLS = len(LABEL) + 2  # with a space either side: what a click on it may hit


def on_label(widget: Widget, event: events.Click) -> bool:
    """The click was on the label drawn at the right of `widget`'s top row (in screen cells:
    a click that bubbled up from a child has the child's offsets)."""
    region = widget.region
    return event.screen_y == region.y and event.screen_x >= region.right - LABEL_CELLS - 1


class CopyFence(MarkdownFence):
    """Textual's code block with "copy" on its top edge (the row its padding left blank), so
    the block keeps its height; a click there copies its code, without the fences. Its lines
    are drawn once each while it streams (`code_lines`)."""

    DEFAULT_CSS = """
    CopyFence {
        border-top: blank;
        border-title-align: right;
        border-title-color: $text-muted;
        & > Label { padding: 0 2 1 2; }
    }
    CopyFence:ansi > Label { padding: 0 0 1 0; }
    """

    _code_cache: CodeCache | None = None

    @property
    def code_cache(self) -> CodeCache:
        if self._code_cache is None:
            self._code_cache = CodeCache()
        return self._code_cache

    def compose(self) -> ComposeResult:
        yield Label(CodeContent(self._highlighted_code, self.code_cache), id="code-content",
                    expand=True)

    def set_content(self, content: Content) -> None:
        super().set_content(CodeContent(content, self.code_cache))

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False,
                  dark: bool = False) -> Content:
        # Code without a language is drawn plain, as rich draws it once the reply is finished
        # (`LiteReply`). Textual has Pygments guess: every lexer tried at every flush (2.5 ms
        # for 30 lines, 18 ms for 300), all of them imported by the first guess (~140 ms).
        return super().highlight(code, language or "text", ansi, dark)

    def notify_style_update(self) -> None:
        self.code_cache.clear()  # a theme's variables can restyle the spans: draw anew
        super().notify_style_update()

    def on_mount(self) -> None:
        self.border_title = LABEL

    def on_click(self, event: events.Click) -> None:
        if on_label(self, event):
            event.stop()
            self.post_message(CopyText(self.code, "the code block"))


class CopyButton(Static):
    """A finished reply's "copy", over the right end of its first line while the mouse is over
    the reply (absolute: it takes no room, and a reply never moves when it shows). The reply's
    CSS shows it (`-hovered`): a widget's own CSS is scoped to it."""

    DEFAULT_CSS = """
    CopyButton {
        position: absolute;
        display: none;
        width: auto;
        height: 1;
        padding: 0 1;
        color: $text-muted;
        background: $boost;
        &:hover { color: $text; background: $primary 30%; }
    }
    """

    def __init__(self) -> None:
        super().__init__(LABEL, classes="copy-button", markup=False)

    def place(self, width: int) -> None:
        """At the right of the first line of a parent `width` cells wide."""
        self.styles.offset = (max(width - LABEL_CELLS, 0), 0)


def hovered(widget: Widget, event: events.Enter | events.Leave) -> None:
    """Enter and Leave bubble up from whatever part of `widget` the mouse crossed: mark it
    while the mouse is anywhere over it (the class that shows its "copy")."""
    over = widget.app.mouse_over
    widget.set_class(over is not None and (over is widget or widget in over.ancestors),
                     "-hovered")
