"""An MCP server's log file (`$BIRDIE_HOME/logs/mcp-<skill>.log`), capped while the server runs.

The file holds the app's own notes (`--- birdie …` lines) and everything the server writes to
stderr. The server never gets the file itself: its stderr is a pipe that a thread copies into
the file, so a server that prints 70 MB during one call cannot grow it past the cap. Past
`limit` bytes the file is rotated to `.1` (replacing the one before) and goes on afresh, with
a line saying so: the log costs at most about twice the limit on disk, and its newest part
(what a failure message quotes) is always there.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import termios
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

LOG_LIMIT = 1_000_000  # bytes
_CHUNK = 65_536


class ServerLog:
    def __init__(self, path: Path, limit: int = LOG_LIMIT) -> None:
        self.path, self.limit = Path(path), limit
        self._lock = threading.Lock()
        with contextlib.suppress(OSError):
            if self.path.stat().st_size > limit:  # what an earlier run left
                self.path.replace(self._older)
        self._fh: IO[str] | None = self._open()
        self.start = self._fh.tell()  # where this run's part begins (0 after a rotation)
        self._reader: int | None = None
        self._writer: IO[str] | None = None
        self._pump: threading.Thread | None = None
        self._busy = False
        self._closed = False

    @property
    def _older(self) -> Path:
        return self.path.with_name(self.path.name + ".1")

    def _open(self) -> IO[str]:
        fh = open(self.path, "a", encoding="utf-8", errors="replace")  # noqa: SIM115
        with contextlib.suppress(OSError):
            os.chmod(self.path, 0o600)
        return fh

    # ----------------------------------------------------------------- writing
    def write(self, text: str) -> None:
        with self._lock:
            if self._fh is None:
                return
            self._fh.write(text)
            self._fh.flush()
            if self._fh.tell() > self.limit:
                self._rotate()

    def flush(self) -> None:
        """Every write is flushed already (a file-like object for `_note`)."""

    def _rotate(self) -> None:
        """Under the lock: the full file becomes `.1`, a fresh one goes on."""
        assert self._fh is not None
        self._fh.close()
        self._fh = None
        with contextlib.suppress(OSError):
            self.path.replace(self._older)
        self._fh = self._open()
        self.start = 0
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        self._fh.write(f"--- birdie {stamp} log rotated past {self.limit:,} bytes; "
                       f"the earlier part is in {self._older.name}\n")
        self._fh.flush()

    # ----------------------------------------------------------------- the server's stderr
    def stderr(self) -> IO[str]:
        """The writing end of a pipe for the server's stderr (`stdio_client`'s errlog); a
        thread copies what arrives into this log."""
        reader, writer = os.pipe()
        self._reader, self._writer = reader, os.fdopen(writer, "w")
        self._pump = threading.Thread(target=self._copy, args=(reader,), daemon=True,
                                      name=f"mcp-log {self.path.name}")
        self._pump.start()
        return self._writer

    def spawned(self) -> None:
        """The server has its own copy of the pipe: drop ours, so its exit ends the copy."""
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(OSError):
                writer.close()

    def _copy(self, reader: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while True:
                chunk = os.read(reader, _CHUNK)
                self._busy = True  # read, not yet written (`settle` waits for it)
                if not chunk:
                    break
                with contextlib.suppress(OSError, ValueError):
                    self.write(decoder.decode(chunk))
                self._busy = False
        except OSError:
            pass
        finally:
            self._busy = False
            with contextlib.suppress(OSError):
                os.close(reader)
            with self._lock:
                if self._closed:
                    self._close_file()

    def settle(self, timeout: float = 0.5) -> None:
        """Wait (briefly) until what the server wrote to stderr is in the file: a failure
        message quotes its last line."""
        deadline = time.monotonic() + timeout
        idle = 0
        while self._pump is not None and self._pump.is_alive() and idle < 2 \
                and time.monotonic() < deadline:
            idle = idle + 1 if not self._busy and not self._pending() else 0
            time.sleep(0.01)

    def _pending(self) -> int:
        """Bytes waiting in the pipe."""
        buf = bytearray(4)
        try:
            fcntl.ioctl(self._reader, termios.FIONREAD, buf)  # type: ignore[arg-type]
        except (OSError, TypeError):
            return 0
        return int.from_bytes(buf, "little")

    # ----------------------------------------------------------------- closing
    def close(self) -> None:
        """Close the log; a server that still holds the pipe (a process it left behind) keeps
        it open, still capped, until that one exits."""
        self.spawned()
        with self._lock:
            self._closed = True
            if self._pump is None or not self._pump.is_alive():
                self._close_file()

    def _close_file(self) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.close()
