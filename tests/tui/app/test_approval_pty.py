"""The real `birdie-tui` in a real pseudo-terminal: a process killed (SIGKILL) or terminated
(SIGTERM) while its approval dialog is open is started again on the same session, asks the
same question, and the answer runs the tool. And the bell / OSC 9 notification a blurred
terminal gets when a turn finishes or an approval waits (not with `"notify": false`). Local
door only: a real process in a pty."""

from __future__ import annotations

import json
import os
import signal

import pytest

from tests.pty_app import PtyApp

pytestmark = pytest.mark.integration

ARMED = 0.6  # the dialog ignores keys for its first ARM_SECONDS (0.4)
FOCUS_OUT = "\x1b[O"  # what a terminal with focus reporting sends when it loses focus
ECHO = 'call run_bash {"command": "echo ran > out.txt"}'


def session_id(home) -> str:
    [path] = (home / "sessions" / "tester").glob("*.json")
    return json.loads(path.read_text())["id"]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_process_stopped_at_its_dialog_asks_again_when_started_again(isolated_home,
                                                                        tmp_path, how):
    """SIGKILL or SIGTERM at the dialog: the next process on the session asks the same call."""
    app = PtyApp(isolated_home, cwd=tmp_path)
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

    again = PtyApp(isolated_home, "--session-id", session_id(isolated_home), cwd=tmp_path)
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
    app = PtyApp(isolated_home, cwd=tmp_path, env={"BIRDIE_OFFLINE_TPS": "40"})
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
    app = PtyApp(isolated_home, cwd=tmp_path, env={"BIRDIE_OFFLINE_TPS": "40"})
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
