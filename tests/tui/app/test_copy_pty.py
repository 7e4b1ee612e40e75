"""Copying in a real pseudo-terminal: the clipboard reaches the terminal as OSC 52 (what a
terminal, tmux with `set-clipboard on`, or one over SSH turns into its clipboard)."""

from __future__ import annotations

import base64
import re

import pytest

from tests.pty_app import PtyApp

pytestmark = pytest.mark.integration

OSC52 = re.compile(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")
F8 = "\x1b[19~"


def clipboard(screen: bytes, start: int) -> list[str]:
    """What the app put on the clipboard after offset `start`, in order."""
    return [base64.b64decode(m.group(1)).decode() for m in OSC52.finditer(screen, start)]


@pytest.mark.slow
def test_f8_and_copy_code_send_the_text_to_the_terminal_as_osc_52(isolated_home, tmp_path):
    """F8 sends the last reply's Markdown, /copy code its code block, base64 in OSC 52."""
    app = PtyApp(isolated_home, cwd=tmp_path)
    try:
        app.wait_for(b"Quit")
        app.type("look:\n```\nprint(1)\n```")  # \n is ctrl+j: a new line in the composer
        app.type("\r")
        mark = app.wait_for(b"You said")
        app.wait_for(b"Tools I could call", mark)
        app.type(F8)
        app.wait_for(b"Copied the reply", mark)
        [reply] = clipboard(bytes(app.screen), mark)
        assert reply.startswith("**Offline model**") and "> print(1)" in reply
        mark = len(app.screen)
        app.type("/copy code\r")
        app.wait_for(b"Copied the last code block", mark)
        assert clipboard(bytes(app.screen), mark) == ["print(1)"]
        app.type("\x11")
        assert app.wait_exit() == 0
    finally:
        app.close()
