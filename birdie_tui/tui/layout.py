"""How wide the side panes are: they fold so the chat keeps room to read as prose. The
context panel goes first, then the skills sidebar; forced open (ctrl+b / ctrl+t), they shrink
instead."""

from __future__ import annotations

FOLD_PANEL = 140
FOLD_SIDEBAR = 110
CHAT_MIN = 44
SIDEBAR_WIDTH = 30
PANEL_WIDTH = 38
SIDE_MIN = 16


def side_widths(width: int, show_sidebar: bool, show_panel: bool) -> tuple[int, int]:
    """Side pane widths that leave the chat at least `CHAT_MIN` columns when it can."""
    sidebar, panel = SIDEBAR_WIDTH, PANEL_WIDTH
    spare = width - CHAT_MIN
    if show_sidebar and show_panel and sidebar + panel > spare:
        sidebar = max(SIDE_MIN, spare * SIDEBAR_WIDTH // (SIDEBAR_WIDTH + PANEL_WIDTH))
        panel = max(SIDE_MIN, spare - sidebar)
    elif show_sidebar and not show_panel:
        sidebar = max(SIDE_MIN, min(sidebar, spare))
    elif show_panel and not show_sidebar:
        panel = max(SIDE_MIN, min(panel, spare))
    return sidebar, panel
