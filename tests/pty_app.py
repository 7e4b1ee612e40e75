"""The real `birdie-tui` on the slave side of a new pty, as its controlling terminal: what a
user's terminal is, for tests that signal, hang up or kill the app."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

from .conftest import clean_env

POLL_LIMIT = 60.0  # seconds: generous; a test fails on what it finds, never on how long it took


class PtyApp:
    def __init__(self, home, *args: str, cwd=None, env: dict[str, str] | None = None) -> None:
        environ = clean_env(home)
        environ.update(TERM="xterm-256color", BIRDIE_WATCH="0", **(env or {}))
        environ.pop("TMUX", None)
        argv = [sys.executable, "-m", "birdie_tui.cli", *args]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: nothing but exec
            if cwd is not None:
                os.chdir(cwd)
            os.execve(sys.executable, argv, environ)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.screen = bytearray()
        self.status: int | None = None

    def pump(self, seconds: float) -> None:
        """Read what the app draws (it must never block on a full terminal)."""
        end = time.monotonic() + seconds
        while self.fd >= 0 and time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                self.screen.extend(data)

    def wait_for(self, what: bytes, start: int = 0) -> int:
        """Wait until `what` is drawn after offset `start`; where it ends."""
        deadline = time.monotonic() + POLL_LIMIT
        while what not in self.screen[start:] and time.monotonic() < deadline:
            self.pump(0.1)
        found = self.screen.find(what, start)
        assert found >= 0, f"never drawn: {what!r}; last: {bytes(self.screen[-1500:])!r}"
        return found + len(what)

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def hang_up(self) -> None:
        """Close the terminal: the kernel sends SIGHUP to the app, reads and writes fail."""
        os.close(self.fd)
        self.fd = -1

    def wait_exit(self) -> int:
        deadline = time.monotonic() + POLL_LIMIT
        while time.monotonic() < deadline:
            self.pump(0.05) if self.fd >= 0 else time.sleep(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError("the app did not exit")

    def close(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (OSError, ChildProcessError):
                pass
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
