"""User key bindings: `settings.json` `"keymap": {"<binding id>": "<keys>"}` (Textual's keymap).

Every binding of ours has an id (`app.sessions`, `composer.newline`, …); docs/contracts.md
lists them. An id that does not exist is reported instead of being ignored in silence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def binding_ids(app: Any) -> set[str]:
    """The ids a keymap may name: every binding with an id on the app, screens and widgets."""
    return set(default_keys(app))


def default_keys(app: Any) -> dict[str, str]:
    """Each binding id with the keys it has before any keymap (`"ctrl+j,shift+enter"`)."""
    from textual.binding import Binding

    from birdie_tui.tui.main_screen import MainScreen
    from birdie_tui.tui.screens.approval import ApprovalScreen
    from birdie_tui.tui.screens.confirm import ConfirmScreen
    from birdie_tui.tui.screens.input_history import InputHistoryScreen
    from birdie_tui.tui.screens.rename import RenameScreen
    from birdie_tui.tui.screens.rewind_picker import RewindPicker
    from birdie_tui.tui.screens.runs import RunsScreen
    from birdie_tui.tui.screens.session_browser import SessionBrowser
    from birdie_tui.tui.widgets.chat.agent_block import AgentHeader
    from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
    from birdie_tui.tui.widgets.composer import Composer
    from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
    from birdie_tui.tui.widgets.search_bar import SearchBar
    from birdie_tui.tui.widgets.skills.agent_section import AgentSection
    from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar

    owners = (type(app), MainScreen, Composer, SkillSidebar, ToolBlock, SessionBrowser, ConfirmScreen,
              ApprovalScreen, RenameScreen, ContextPanel, AgentSection, AgentHeader,
              RewindPicker, SearchBar, InputHistoryScreen, RunsScreen)
    return {b.id: b.key for owner in owners for b in owner.BINDINGS
            if isinstance(b, Binding) and b.id}


def key_for(app: Any, binding_id: str) -> str:
    """The key a binding answers to now, as text to show ("Enter", "ctrl+j", "f2"): the first
    of its keys after the user's keymap; "(unbound)" when the keymap left it none."""
    # Textual keeps the installed keymap here and reads it itself (Screen); no public getter.
    installed = getattr(app, "_keymap", None) or {}
    keys = (installed[binding_id] if binding_id in installed
            else default_keys(app).get(binding_id, ""))
    first = next((k.strip() for k in keys.split(",") if k.strip()), "")
    return {"enter": "Enter", "": "(unbound)"}.get(first, first)


def apply_keymap(app: Any, keymap: Mapping[str, str]) -> list[str]:
    """Install the user's keymap; returns one warning per id that names no binding."""
    known = binding_ids(app)
    unknown = sorted(set(keymap) - known)
    app.set_keymap({key: value for key, value in keymap.items() if key in known})
    return [f"keymap: no binding has the id {name!r} (docs/contracts.md lists them)"
            for name in unknown]
