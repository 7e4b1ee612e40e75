"""Process-wide notices of recovered damage: a corrupt file moved aside, a broken database replaced.

Whoever repairs something calls `announce(message)` at that moment; the message goes to the log
file (`$BIRDIE_HOME/logs/birdie-tui.log`) and to every registered listener (the TUI shows a
toast, headless commands print `birdie-tui: recovered: <message>` to stderr). Listeners may be
called from worker threads: a UI marshals to its own loop. Nothing is queued or replayed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

__all__ = ["LOGGER_NAME", "Listener", "add_listener", "announce"]

LOGGER_NAME = "birdie_tui.recovery"

Listener = Callable[[str], None]

_lock = threading.Lock()
_listeners: list[Listener] = []


def add_listener(fn: Listener) -> Callable[[], None]:
    """Call `fn(message)` on every announcement; returns a callable that removes it again."""
    with _lock:
        _listeners.append(fn)

    def remove() -> None:
        with _lock:
            try:
                _listeners.remove(fn)
            except ValueError:  # removed twice: harmless
                pass

    return remove


def announce(message: str, *, logs_dir: Path | None = None) -> None:
    """Log `message` to the app's log file and hand it to every listener (errors swallowed:
    telling the user about a repair must never break the repair)."""
    from .logfile import log_to_file
    from .paths import BirdiePaths

    try:
        log_to_file(logs_dir if logs_dir is not None else BirdiePaths.from_env().logs_dir)
        logging.getLogger(LOGGER_NAME).warning("%s", message)
    except Exception:  # noqa: BLE001 - an unwritable log must not hide the notice
        pass
    with _lock:
        listeners = list(_listeners)
    for fn in listeners:
        try:
            fn(message)
        except Exception:  # noqa: BLE001 - one bad listener must not silence the others
            logging.getLogger(LOGGER_NAME).exception("recovery listener failed")
