"""The app's own log file, `$BIRDIE_HOME/logs/birdie-tui.log`: warnings that must not be printed
over a full-screen UI (e.g. "file watching fell back to polling") go there."""

from __future__ import annotations

import logging
from pathlib import Path

LOG_NAME = "birdie-tui.log"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class ScrubbingFormatter(logging.Formatter):
    """Formats a record (message, arguments and traceback) with its secrets masked."""

    def format(self, record: logging.LogRecord) -> str:
        from birdie_tui.secrets import scrub

        return scrub(super().format(record))


def log_to_file(logs_dir: Path, logger_name: str = "birdie_tui") -> Path | None:
    """Send `logger_name`'s records to the log file (once); never to the terminal."""
    logger = logging.getLogger(logger_name)
    path = Path(logs_dir) / LOG_NAME
    for old in [h for h in logger.handlers if getattr(h, "_birdie_log", False)]:
        if isinstance(old, logging.FileHandler) and Path(old.baseFilename) == path:
            return path
        logger.removeHandler(old)  # another BIRDIE_HOME (tests, a second app): one file only
        old.close()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
        written: Path | None = path
    except OSError:
        handler, written = logging.NullHandler(), None
    handler.setFormatter(ScrubbingFormatter(LOG_FORMAT))
    handler._birdie_log = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return written
