"""The last line of defence between text and the terminal.

Every widget is given text made safe by `birdie_tui.screen_text` at its door. This guard is for
the door someone forgets: when Textual turns a frame's segments into bytes (`Strip.render`, the
one place its compositor does so), any control character left in a segment's text, or in a
link's URL, is dropped. Dropped rather than drawn: the layout was measured with the character
at its width (zero), so a visible stand-in here would push the row past its region.

Textual writes its own escape sequences (cursor moves, SGR, OSC 8 links) from styles and
positions, never from segment text, so nothing the app means to send is touched.
"""

from __future__ import annotations

import re

from rich.color import ColorSystem
from rich.console import Console
from textual.strip import Strip

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _render(self: Strip, console: Console) -> str:
    if self._render_cache is None:
        color_system = console._color_system or ColorSystem.TRUECOLOR
        render_style = self.render_style
        parts: list[str] = []
        for text, style, _ in self._segments:
            if _CONTROL.search(text):
                text = _CONTROL.sub("", text)
            if style is None:
                parts.append(text)
                continue
            if style._link and _CONTROL.search(style._link):
                style = style.update_link(None)
            parts.append(render_style(style, text, color_system=color_system))
        self._render_cache = "".join(parts)
    return self._render_cache


def install() -> None:
    """Route every frame through the guard (idempotent)."""
    if Strip.render is not _render:
        Strip.render = _render  # type: ignore[method-assign]


def installed() -> bool:
    return Strip.render is _render
