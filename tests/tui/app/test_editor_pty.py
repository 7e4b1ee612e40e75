"""The message in the user's own editor, in a real pseudo-terminal: ctrl+x ctrl+e (and F4)
hands the screen to $EDITOR on the composer's text and the saved text comes back to the
composer; an editor that fails leaves the message as it was. Local door: a real process."""

from __future__ import annotations

import pytest

from birdie_tui.tui.editor import edit_text, editor_command
from tests.pty_app import PtyApp

pytestmark = pytest.mark.integration

# An "editor" that appends to the file it is given, and says on the terminal that it ran.
APPEND = "sh -c 'printf \"ran the editor\\n\" >/dev/tty; printf \" edited\" >> \"$1\"' sh"


@pytest.mark.slow
def test_ctrl_x_ctrl_e_edits_the_message_in_the_editor(isolated_home, tmp_path):
    """The chord runs the editor on the text typed so far; the edited text is what is sent."""
    app = PtyApp(isolated_home, cwd=tmp_path, env={"EDITOR": APPEND, "VISUAL": ""})
    try:
        app.wait_for(b"Quit")
        app.type("draft")
        app.wait_for(b"draft")
        mark = len(app.screen)
        app.type("\x18\x05")  # ctrl+x ctrl+e
        app.wait_for(b"ran the editor", mark)
        app.wait_for(b"draft edited", mark)  # back in the composer
        app.type("\x1bOS")  # F4: the same again
        app.wait_for(b"draft edited edited", mark)
        app.type("\r")
        app.wait_for(b"You said", mark)
        app.type("\x11")
        assert app.wait_exit() == 0
    finally:
        app.close()


def test_an_editor_that_fails_leaves_the_text_and_says_why(tmp_path):
    """A non-zero exit keeps the message as it was; a missing editor says it cannot start."""
    assert edit_text("keep me", ["sh", "-c", "echo x > \"$1\"; exit 3", "sh"]) == (
        None, "sh exited with status 3: message kept")
    text, problem = edit_text("keep me", [str(tmp_path / "no-such-editor")])
    assert text is None and problem.startswith("could not start")
    assert edit_text("a", ["sh", "-c", "printf 'b\\n' > \"$1\"", "sh"]) == ("b", "")


def test_visual_wins_over_editor():
    """$VISUAL first, then $EDITOR, each split as a shell would."""
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": " ", "EDITOR": "nano -R"}) == ["nano", "-R"]


@pytest.mark.app
async def test_ctrl_x_still_cuts_the_line_and_the_chord_puts_it_back(any_app):
    """ctrl+x alone cuts the line as before; ctrl+x ctrl+e puts it back before the editor
    (headless, the editor cannot have the screen: said, and the text is kept)."""
    from tests.tui.app.conftest import wait_ready

    app = any_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        composer = app.query_one("#composer")
        composer.load_text("keep this line")
        await pilot.press("ctrl+x")
        assert composer.text == ""
        await pilot.press("x")
        assert composer.text == "x"
        composer.load_text("keep this line")
        await pilot.press("ctrl+x", "ctrl+e")
        await pilot.pause()
        assert composer.text == "keep this line"
        assert any("cannot hand the screen" in n.message for n in app._notifications)
