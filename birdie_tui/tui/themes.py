"""Theme files: `themes/<name>.toml` parsed into Textual `Theme`s and registered on the app.

Textual has no theme-file loader, so this module owns the format. One bad file becomes a
warning, never a crash; the app keeps its default theme for that name.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import Theme

COLOUR_KEYS = (
    "primary", "secondary", "accent", "foreground", "background", "surface", "panel", "boost",
    "warning", "error", "success",
)
KNOWN_KEYS = frozenset({"name", "dark", "variables", *COLOUR_KEYS})


class ThemeError(ValueError):
    """A theme file that cannot be used; the message is one line naming the file."""


def bundled_themes_path() -> Path:
    """The themes shipped with birdie-tui (repo-root `themes/` in a checkout)."""
    from birdie_tui.service.first_paint import bundled_themes

    return bundled_themes()


def _colour(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{path}: {key} must be a colour string, got {type(value).__name__}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{path}: {key} = {value!r} is not a valid colour") from None
    return value


def _variables(path: Path, value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ThemeError(f"{path}: [variables] must be a table of name = \"value\"")
    out: dict[str, str] = {}
    for name, var in value.items():
        if not isinstance(var, str):
            raise ThemeError(f"{path}: variables.{name} must be a string, got {type(var).__name__}")
        out[name] = var
    return out


def load_theme_file(path: Path | str) -> Theme:
    """Parse one theme file; raises ThemeError with a one-line reason on any problem."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise ThemeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ThemeError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message already ends with "(at line N, column M)".
        raise ThemeError(f"{path}: invalid TOML: {exc}") from None

    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise ThemeError(
            f"{path}: unknown key {', '.join(map(repr, unknown))}"
            f" (expected: name, dark, {', '.join(COLOUR_KEYS)}, [variables])"
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        example = f'name = "{path.stem}"'
        raise ThemeError(f"{path}: missing name (a non-empty string, e.g. {example})")
    if "primary" not in data:
        raise ThemeError(f"{path}: missing primary colour (e.g. primary = \"#4fb3a9\")")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"{path}: dark must be true or false")

    # Any: Theme's keywords are of several types; these are only its colour ones, all text.
    colours: dict[str, Any] = {key: _colour(path, key, data[key]) for key in COLOUR_KEYS
                               if key in data}
    variables = _variables(path, data.get("variables", {}))
    try:
        theme = Theme(name=name.strip(), dark=dark, variables=variables, **colours)
        theme.to_color_system()  # surface what Textual itself rejects now, not on apply
    except Exception as exc:  # noqa: BLE001 — any Textual complaint becomes a file error
        raise ThemeError(f"{path}: {exc}") from None
    return theme


def load_themes(dirs: Iterable[Path | str] | None = None) -> tuple[list[Theme], list[str]]:
    """Every `*.toml` theme in `dirs` (default: the bundled folder), plus one warning per bad file.

    Never raises. A missing folder is fine. When two files share a name, the later folder wins,
    so pass `[bundled, user]` to let users override a bundled theme.
    """
    if dirs is None:
        dirs = [bundled_themes_path()]
    themes: dict[str, Theme] = {}
    warnings: list[str] = []
    for folder in map(Path, dirs):
        try:
            files = sorted(p for p in folder.glob("*.toml") if p.is_file())
        except OSError as exc:
            warnings.append(f"{folder}: cannot list themes: {exc}")
            continue
        for file in files:
            try:
                theme = load_theme_file(file)
            except ThemeError as exc:
                warnings.append(str(exc))
                continue
            themes.pop(theme.name, None)  # keep the later file's position too
            themes[theme.name] = theme
    return list(themes.values()), warnings


def register_themes(app: App[Any], dirs: Iterable[Path | str] | None = None) -> list[str]:
    """Register every loadable theme on `app`; returns the warnings for the app to notify."""
    themes, warnings = load_themes(dirs)
    for theme in themes:
        app.register_theme(theme)
    return warnings


def apply_theme(app: App[Any], name: str) -> str | None:
    """Switch to theme `name` if registered; otherwise keep the current theme and return why."""
    if name not in app.available_themes:
        return f"Theme {name!r} is not available (broken or missing file?); keeping {app.theme!r}"
    app.theme = name
    return None
