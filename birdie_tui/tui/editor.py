"""Writing a message in the user's own editor: `$VISUAL`, else `$EDITOR`, else the first of
`nano`, `vim`, `vi` found, on a temporary Markdown file holding the composer's text; the app
steps aside while it runs (Textual's `App.suspend`) and the saved text comes back."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from birdie_tui.tui.widgets.composer import Composer

FALLBACKS = ("nano", "vim", "vi")


def editor_command(environ: Mapping[str, str] = os.environ) -> list[str] | None:
    """The editor's command line (without the file), or None when there is none."""
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                continue
            if words:
                return words
    found = next((shutil.which(name) for name in FALLBACKS if shutil.which(name)), None)
    return [found] if found else None


def edit_text(text: str, command: list[str]) -> tuple[str | None, str]:
    """Run `command` on a file holding `text`: (the saved text, "") or (None, why not). The
    text comes back without the newline an editor adds at the end of the file."""
    with tempfile.TemporaryDirectory(prefix="birdie-message-") as folder:
        path = Path(folder) / "message.md"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*command, str(path)], check=False)
        except OSError as exc:
            return None, f"could not start {command[0]}: {exc.strerror or exc}"
        if done.returncode != 0:
            return None, f"{command[0]} exited with status {done.returncode}: message kept"
        try:
            saved = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return None, f"could not read the edited message: {exc.strerror or exc}"
    return (saved[:-1] if saved.endswith("\n") else saved), ""


def edit_in_editor(composer: Composer) -> None:
    """The composer's message in the user's editor (the app suspended meanwhile); the saved
    text comes back to the composer, not sent. Said in a toast when it cannot be done."""
    from textual.app import SuspendNotSupported

    command = editor_command()
    if command is None:
        composer.notify("No editor: set $VISUAL or $EDITOR.", severity="warning")
        return
    try:
        with composer.app.suspend():
            text, problem = edit_text(composer.full_text, command)
    except SuspendNotSupported:
        composer.notify("This terminal cannot hand the screen to an editor.", severity="warning")
        return
    if text is None:
        composer.notify(problem, severity="warning")
        return
    composer.load_text(text)
    composer.move_cursor(composer.document.end)
