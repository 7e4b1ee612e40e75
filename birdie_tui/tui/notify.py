"""Tell a user who looks elsewhere that Birdie needs them: a turn finished, or an approval
waits. Only while the terminal is unfocused (Textual's AppBlur/AppFocus, from the terminal's
focus reports), and unless settings.json says `"notify": false`: the bell, then an OSC 9
desktop notification (iTerm2, kitty, WezTerm, Windows Terminal, foot, ghostty…; terminals
that do not know it ignore it).

Written through the app's driver, like Textual's own `App.bell`, so it is ordered with the
frames and never lands in the middle of one.
"""

from __future__ import annotations

from typing import Any

TEXT_LIMIT = 200  # characters of a notification's text


def osc9(text: str, *, tmux: bool = False) -> str:
    """The escape sequence for a desktop notification saying `text` (control characters
    removed: a tool's output must not end the sequence early and write to the terminal).
    Inside tmux it is wrapped to pass through (tmux 3.3+ with `allow-passthrough on`)."""
    clean = "".join(ch if ch.isprintable() else " " for ch in text)
    clean = " ".join(clean.split())[:TEXT_LIMIT] or "Birdie"
    sequence = f"\x1b]9;{clean}\x07"
    if tmux:
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return sequence


def wanted(app: Any) -> bool:
    """True when a notification would reach someone: unfocused, enabled, a real terminal."""
    if app.app_focus or app.is_headless or getattr(app, "_driver", None) is None:
        return False
    birdie = getattr(app, "birdie", None)
    return birdie is None or bool(birdie.settings().notify)


def tell(app: Any, text: str) -> bool:
    """Ring the bell and send `text` as a desktop notification, if `wanted`; True if sent."""
    if not wanted(app):
        return False
    environ = getattr(app, "environ", {})
    # Textual has no public way to write to the terminal; App.bell does just this.
    app._driver.write("\a" + osc9(text, tmux=bool(environ.get("TMUX"))))
    return True
