"""What a front end needs before Birdie has started: where themes live and the saved theme.
Read without pydantic or the engine, so the first paint stays fast."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from birdie_tui.regular_files import read_regular


def birdie_home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("BIRDIE_HOME", "~/.birdie")).expanduser()


def bundled_themes() -> Path:
    from birdie_tui.skills.bundled import bundled_themes_dir

    return bundled_themes_dir()


def theme_dirs(environ: Mapping[str, str]) -> list[Path]:
    """Bundled themes, then the user's (`$BIRDIE_HOME/themes`)."""
    return [bundled_themes(), birdie_home(environ) / "themes"]


def saved_theme(environ: Mapping[str, str]) -> str | None:
    """The theme from settings.json, or None."""
    path = environ.get("BIRDIE_SETTINGS_FILE") or str(birdie_home(environ) / "settings.json")
    try:
        value = json.loads(read_regular(path).decode("utf-8")).get("theme")  # a FIFO would block
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None
