"""The UI's own settings (theme, tool output, keymap, notifications) as the door shows and saves
them: always this machine's `settings.json`, whichever door (local or remote) is open."""

from __future__ import annotations

from typing import Any

from birdie_tui.service.protocol import BirdieError
from birdie_tui.service.rows import SettingsRow


def settings_row(settings: Any) -> SettingsRow:
    """The row for loaded settings (None: not started yet, the defaults)."""
    if settings is None:
        return SettingsRow()
    return SettingsRow(theme=settings.theme, tool_output=settings.tool_output,
                       keymap=tuple(sorted(settings.keymap.items())), notify=settings.notify,
                       agent_output=settings.agent_output)


def save_ui_settings(settings: Any, paths: Any, changes: dict[str, Any]) -> None:
    """Apply `changes` to the loaded settings and write them under `paths`; nothing when none
    were loaded (not started: nothing to save over). A failed write is one line."""
    from birdie_tui.store.settings import save_settings

    if settings is None:
        return
    for name, value in changes.items():
        setattr(settings, name, value)
    try:
        save_settings(paths, settings)
    except OSError as exc:
        raise BirdieError(f"could not save settings: {exc}") from exc
