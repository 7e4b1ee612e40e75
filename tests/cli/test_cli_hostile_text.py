"""Escape sequences in replies, titles, skill files and errors never reach a terminal from the
command line; programs reading stream-json or a pipe still get the exact text."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from ..conftest import clean_env
from .helpers import run_cli

pytestmark = pytest.mark.integration

TITLE = "\x1b]0;pwned\x07"
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"
HOSTILE = f"hello {CLIPBOARD}{TITLE}\x1b[2J\x1b[?1049l\x9b?1000h end"


def _on_a_terminal(home, *args: str) -> str:
    """Run the real command with its stdout and stderr on a new pty; everything it wrote."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "birdie_tui.cli", *args], env=clean_env(home),
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    out = bytearray()
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        out.extend(data)
    proc.wait(timeout=120)
    os.close(leader)
    return out.decode("utf-8", "replace")


def _no_control(text: str) -> None:
    active = [c for c in text if (ord(c) < 0x20 and c not in "\r\n\t") or 0x7F <= ord(c) <= 0x9F]
    assert active == [], repr(text[-600:])


def test_print_on_a_terminal_neutralises_the_reply(tmp_path):
    """`--print` to a terminal: the offline model repeats the hostile message, and the reply
    shows `␛]52;…` instead of writing the clipboard; the stderr lines are clean too."""
    out = _on_a_terminal(tmp_path, "--print", HOSTILE)
    _no_control(out)
    assert "␛]52;…" in out and "␛]0;…" in out and "end" in out


def test_print_into_a_pipe_keeps_the_exact_text(tmp_path):
    """Piped, the reply is what the model wrote, byte for byte (a program reads it)."""
    proc = run_cli(tmp_path, "--print", HOSTILE)
    assert proc.returncode == 0, proc.stderr
    assert CLIPBOARD in proc.stdout


def test_stream_json_keeps_the_exact_text_json_escaped(tmp_path):
    """stream-json carries the exact text, escaped by JSON: no raw ESC on the line."""
    proc = run_cli(tmp_path, "--print", HOSTILE, "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout
    done = [json.loads(line) for line in proc.stdout.splitlines()][-1]
    assert done["type"] == "done" and CLIPBOARD in done["text"]


def test_sessions_list_never_writes_a_title_s_escapes(tmp_path):
    """A session titled by a hostile first message lists as inert text, and --json keeps it."""
    assert run_cli(tmp_path, "--print", HOSTILE).returncode == 0
    proc = run_cli(tmp_path, "sessions", "list")
    _no_control(proc.stdout)
    assert "␛]52;…" in proc.stdout
    rows = json.loads(run_cli(tmp_path, "sessions", "list", "--json").stdout)
    assert CLIPBOARD in rows[0]["title"]


def test_sessions_export_to_a_terminal_is_neutralised(tmp_path):
    """`sessions export` shown on a terminal is inert; into a file it is exact."""
    assert run_cli(tmp_path, "--print", HOSTILE).returncode == 0
    sid = json.loads(run_cli(tmp_path, "sessions", "list", "--json").stdout)[0]["id"]
    out = _on_a_terminal(tmp_path, "sessions", "export", sid)
    _no_control(out)
    assert "␛]52;…" in out
    assert CLIPBOARD in run_cli(tmp_path, "sessions", "export", sid).stdout


def test_skills_check_shows_a_hostile_skill_file_inertly(tmp_path):
    """A skill whose name, description and trigger carry escapes is reported inertly."""
    folder = tmp_path / "skills" / "evil"
    folder.mkdir(parents=True)
    # YAML takes no raw ESC, but its double-quoted escapes (\\e, \\a, \\x9b) make one.
    (folder / "SKILL.MD").write_text(
        '---\nname: "evil\\e]0;pwned\\a"\ndescription: "desc\\e]52;c;ZXZpbA==\\a\\x9b2J"\n'
        'triggers: ["go\\e]0;t\\a"]\n---\nBody.\n', encoding="utf-8")
    proc = run_cli(tmp_path, "skills", "check", str(tmp_path / "skills"))
    _no_control(proc.stdout + proc.stderr)
    assert "␛]0;…" in proc.stdout + proc.stderr
