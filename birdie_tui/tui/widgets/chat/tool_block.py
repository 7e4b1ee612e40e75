"""One tool call in the chat log: a compact title line that expands to arguments and result.

A single widget renders title and body as one Content: replaying a long session mounts
hundreds of these, and one widget each keeps that fast. Tool output is arbitrary text (it may
contain ``[brackets]``), so it is never parsed as markup; nor can its escape sequences reach the
terminal: colours are kept as styles, everything else is neutralised, and the call's name and
arguments show every control character as such (`birdie_tui.screen_text`). How much of the
result shows follows the `/tool output` mode.
"""

from __future__ import annotations

import json
import time
from typing import Any

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from birdie_tui.screen_text import literal
from birdie_tui.tui.widgets.safe_content import exact, output

TOOL_OUTPUT_MODES = ("full", "short", "off")
SHORT_LINES = 10
TITLE_ARGS_CHARS = 80
BODY_INDENT = "  "


def compact_args(args: dict[str, Any], limit: int = TITLE_ARGS_CHARS) -> str:
    """Arguments as one-line JSON without the outer braces, cut to `limit` characters."""
    try:
        text = json.dumps(args, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        text = str(args)
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    text = literal(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def count_lines(text: str) -> int:
    return len(text.splitlines()) if text else 0


def trim_output(text: str, mode: str) -> str | None:
    """The result text the mode allows, or None when the mode shows no result at all."""
    if mode == "off":
        return None
    if mode == "short":
        lines = text.splitlines()
        if len(lines) > SHORT_LINES:
            more = len(lines) - SHORT_LINES
            return "\n".join(lines[:SHORT_LINES]) + f"\n… {more} more line{'s' if more != 1 else ''}"
    return text


def _indent(text: str) -> str:
    return "\n".join(BODY_INDENT + line for line in text.splitlines())


class ToolBlock(Static, can_focus=True):
    """A tool call: …running → ✓ / ✗. Collapsed when it went well, open when it failed.

    A gated call says `waiting for approval` while its dialog is open, and `not run` when it
    was denied or left for later: the title never claims a call runs that does not.
    """

    DEFAULT_CSS = """
    ToolBlock {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: outer $panel-lighten-2;
        background: $surface;
        color: $text-muted;
        /* Output wraps and long tokens fold: a line is never cut at the edge of the log. */
        text-wrap: wrap;
        text-overflow: fold;
        &:hover { background: $boost; }
        &:focus { background: $boost; color: $text; }
        &.-error { border-left: outer $error; }
    }
    """

    BINDINGS = [Binding("enter,space", "toggle", "Toggle", id="tool_block.toggle", show=False)]

    collapsed: reactive[bool] = reactive(True, init=False)

    def __init__(
        self,
        call_id: str,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        mode: str = "full",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(markup=False, id=id, classes=classes)
        self._call_id = call_id
        self._tool_name = name  # not `_name`: that is the DOM name
        self._args = dict(args or {})
        self._mode = mode if mode in TOOL_OUTPUT_MODES else "full"
        self._content: str | None = None
        self._error = False
        self._cancelled = False
        # None while it runs; else why it is not running: "waiting for approval" | "not run…"
        self._held: str | None = None
        self._started = time.monotonic()
        self._clock: Any = None  # the once-a-second timer, only while it runs
        self._mounted_once = False  # timers need a running widget
        self.add_class("-collapsed")
        self._redraw()

    # -- public state -------------------------------------------------------------------------

    @property
    def call_id(self) -> str:
        return self._call_id

    @property
    def name(self) -> str:  # the tool's name, not a DOM name
        return self._tool_name

    @property
    def args(self) -> dict[str, Any]:
        return self._args

    @property
    def error(self) -> bool:
        return self._error

    # The result, not Static.content (a read-write property there): read-only here.
    @property  # type: ignore[misc]
    def content(self) -> str | None:  # type: ignore[override]
        """The full result text, or None while the tool runs."""
        return self._content

    @property
    def finished(self) -> bool:
        return self._content is not None or self._cancelled

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def title_text(self) -> str:
        return self._title().plain

    @property
    def result_text(self) -> str:
        """What the expanded body shows of the result ("" when the mode hides it)."""
        if self._content is None:
            return ""
        return trim_output(self._content, self._mode) or ""

    @property
    def held(self) -> str | None:
        """Why the call is not running (`waiting for approval`, `not run…`), or None."""
        return self._held

    # -- changes ------------------------------------------------------------------------------

    def hold(self, why: str | None) -> None:
        """Say why the call is not running (None: it runs now, and its clock starts)."""
        if self.finished:
            return
        self._held = why
        if why is None:
            self._started = time.monotonic()
        self._tick_clock()

    def on_mount(self) -> None:
        self._mounted_once = True
        self._tick_clock()

    def on_unmount(self) -> None:
        self._stop_clock()

    def _tick_clock(self) -> None:
        """Redraw, and keep the elapsed-time timer going only while the call runs."""
        if self._mounted_once and self._call_runs and self._clock is None:
            self._clock = self.set_interval(1.0, self._tick_clock)
        elif not self._call_runs:
            self._stop_clock()
        self._redraw()

    def _stop_clock(self) -> None:
        if self._clock is not None:
            self._clock.stop()
            self._clock = None

    @property
    def _call_runs(self) -> bool:
        return not self.finished and self._held is None

    @property
    def clock_running(self) -> bool:
        return self._clock is not None

    def finish(self, content: str, error: bool = False) -> None:
        """Record the result; an error opens the block so the user sees it."""
        self._stop_clock()
        self._content = content
        self._error = error
        self.set_class(error, "-error")
        self.set_reactive(ToolBlock.collapsed, not (error and self._mode != "off"))
        self._redraw()

    def cancel(self) -> None:
        """The call never returned (interrupted turn, or replayed history without a result)."""
        if self._content is None:
            self._cancelled = True
            self._stop_clock()
            self._redraw()

    def set_mode(self, mode: str) -> None:
        if mode not in TOOL_OUTPUT_MODES:
            raise ValueError(f"tool output mode must be one of {TOOL_OUTPUT_MODES}, not {mode!r}")
        self._mode = mode
        if mode == "off":
            self.set_reactive(ToolBlock.collapsed, True)
        self._redraw()

    def toggle(self) -> None:
        self.collapsed = not self.collapsed

    # The block's own toggle (its key), not DOMNode's `toggle(attribute_name)` of a class.
    def action_toggle(self) -> None:  # type: ignore[override]
        self.toggle()

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:  # the title row; clicks in the body are left for text selection
            event.stop()
            self.toggle()

    def watch_collapsed(self) -> None:
        self._redraw()

    # -- rendering ----------------------------------------------------------------------------

    def _title(self) -> Content:
        arrow = "▸" if self.collapsed else "▾"
        parts: list[str | tuple[str, str] | Content] = [f"{arrow} ", exact(self._tool_name, "bold $text")]
        if self._mode != "off":
            parts.append(f"({compact_args(self._args)})")
        if self._cancelled:
            parts.append("  ✗ cancelled")
        elif self._held is not None and (self._content is None or self._held.startswith("not")):
            mark = "⏸" if self._held.startswith("waiting") else "✗"
            parts.append((f"  {mark} {self._held}", "italic"))
        elif self._content is None:
            elapsed = int(time.monotonic() - self._started)
            parts.append((f"  …running {elapsed}s" if elapsed >= 1 else "  …running", "italic"))
        else:
            done = ("  ✗", "bold $error") if self._error else ("  ✓", "bold $success")
            lines = count_lines(self._content)
            parts += [done, f"  {lines} line{'s' if lines != 1 else ''}"]
        return Content.assemble(*parts)

    def _body(self) -> list[str | Content]:
        if self.collapsed or self._mode == "off":
            return []
        args = json.dumps(self._args, indent=2, ensure_ascii=False, default=str) if self._args else "(no arguments)"
        parts: list[str | Content] = ["\n", exact(_indent(args))]
        shown = self.result_text
        if shown:
            result = output(shown)
            lines = [Content(BODY_INDENT) + line for line in result.split("\n")]
            parts += ["\n", Content("\n").join(lines).stylize_before(
                "$error" if self._error else "$text")]
        return parts

    def _redraw(self) -> None:
        self.set_class(self.collapsed, "-collapsed")
        self.update(Content.assemble(self._title(), *self._body()))
