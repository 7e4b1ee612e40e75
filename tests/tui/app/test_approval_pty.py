"""The real `birdie-tui` in a real pseudo-terminal: a process killed (SIGKILL) or terminated
(SIGTERM) while its approval dialog is open is started again on the same session, asks the
same question, and the answer runs the tool. And the bell / OSC 9 notification a blurred
terminal gets when a turn finishes or an approval waits (not with `"notify": false`)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

import pytest

from tests.conftest import clean_env

POLL_LIMIT = 60.0  # seconds: generous; a test fails on what it finds, never on how long it took
ARMED = 0.6  # the dialog ignores keys for its first ARM_SECONDS (0.4)
FOCUS_OUT = "\x1b[O"  # what a terminal with focus reporting sends when it loses focus
ECHO = 'call run_bash {"command": "echo ran > out.txt"}'


class PtyApp:
    """`birdie-tui` on the slave side of a new pty, as its controlling terminal."""

    def __init__(self, home, cwd, *args: str, env: dict[str, str] | None = None) -> None:
        environ = clean_env(home)
        environ.update(TERM="xterm-256color", BIRDIE_WATCH="0", **(env or {}))
        environ.pop("TMUX", None)
        argv = [sys.executable, "-m", "birdie_tui.cli", *args]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: nothing but exec
            os.chdir(cwd)
            os.execve(sys.executable, argv, environ)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.screen = bytearray()
        self.status: int | None = None

    def pump(self, seconds: float) -> None:
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

    def wait_exit(self) -> int:
        deadline = time.monotonic() + POLL_LIMIT
        while time.monotonic() < deadline:
            self.pump(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
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


def session_id(home) -> str:
    [path] = (home / "sessions" / "tester").glob("*.json")
    return json.loads(path.read_text())["id"]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_process_stopped_at_its_dialog_asks_again_when_started_again(isolated_home,
                                                                        tmp_path, how):
    """SIGKILL or SIGTERM at the dialog: the next process on the session asks the same call."""
    app = PtyApp(isolated_home, tmp_path)
    try:
        app.wait_for(b"Quit")  # the footer: the app is up and reads keys
        app.type(ECHO)
        app.wait_for(b"echo ran")
        app.type("\r")
        app.wait_for(b"Allow once")
        os.kill(app.pid, getattr(signal, how))
        status = app.wait_exit()
    finally:
        app.close()
    assert status == (-signal.SIGKILL if how == "SIGKILL" else 128 + signal.SIGTERM)
    assert not (tmp_path / "out.txt").exists()

    again = PtyApp(isolated_home, tmp_path, "--session-id", session_id(isolated_home))
    try:
        end = again.wait_for(b"Allow once")
        again.wait_for(b"echo ran > out.txt")  # the same call
        again.pump(ARMED)
        again.type("y")
        again.wait_for(b"tool call finished", end)
        again.type("\x11")  # ctrl+q
        assert again.wait_exit() == 0
    finally:
        again.close()
    assert (tmp_path / "out.txt").read_text() == "ran\n"


def notified(app: PtyApp, text: str) -> bytes:
    return b"\x07\x1b]9;" + text.encode() + b"\x07"


@pytest.mark.slow
def test_a_blurred_terminal_is_told_when_an_approval_waits_and_a_turn_ends(isolated_home,
                                                                           tmp_path):
    # Paced, so the focus-out arrives while the model is still answering.
    """Unfocused: a bell and an OSC 9 notification for the approval and the turn's end."""
    app = PtyApp(isolated_home, tmp_path, env={"BIRDIE_OFFLINE_TPS": "40"})
    try:
        app.wait_for(b"Quit")
        assert b"\x1b[?1004h" in app.screen  # Textual asked the terminal for focus reports
        app.type(ECHO)
        app.wait_for(b"echo ran")
        app.type("\r" + FOCUS_OUT)
        app.wait_for(notified(app, "Birdie: approve run_bash?"))
        app.pump(ARMED)
        app.type("y" + FOCUS_OUT)  # a key brings focus back: blur again after it
        app.wait_for(notified(app, "Birdie: the turn finished"))
        app.type("\x11")
        app.wait_exit()
    finally:
        app.close()


@pytest.mark.slow
def test_notify_false_keeps_the_terminal_quiet(isolated_home, tmp_path):
    """With `notify: false` no OSC 9 notification is written, even unfocused."""
    (isolated_home / "settings.json").write_text(json.dumps({"notify": False}))
    app = PtyApp(isolated_home, tmp_path, env={"BIRDIE_OFFLINE_TPS": "40"})
    try:
        app.wait_for(b"Quit")
        app.type(ECHO)
        app.wait_for(b"echo ran")
        app.type("\r" + FOCUS_OUT)
        end = app.wait_for(b"Allow once")
        app.pump(ARMED)
        app.type("y" + FOCUS_OUT)
        app.wait_for(b"tool call finished", end)
        app.pump(0.5)
        app.type("\x11")
        app.wait_exit()
    finally:
        app.close()
    assert b"\x1b]9;" not in app.screen
