"""`--print MESSAGE` with standard input piped: the model gets both, the message first and
the piped text after it in a <stdin> block (real subprocesses, offline model)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ..conftest import clean_env
from .helpers import events_of

pytestmark = pytest.mark.integration


def run_print(home, *args: str, stdin, env: dict[str, str] | None = None,
              input: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = clean_env(home)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "birdie_tui.cli", *args], env=full_env,
                          stdin=stdin, input=input, capture_output=True, text=True,
                          timeout=120)


def test_a_message_and_piped_text_both_reach_the_model(isolated_home):
    """`printf 'ERROR disk full\\n' | birdie-tui -p "summarize these logs"` sends the message,
    a blank line and the piped text as a <stdin> block (the offline model quotes it back)."""
    proc = run_print(isolated_home, "-p", "summarize these logs", "--output-format",
                     "stream-json", stdin=None, input="ERROR disk full\r\n")
    assert proc.returncode == 0, proc.stderr
    reply = events_of(proc)[-1]["text"]
    assert "> summarize these logs\n>\n> <stdin>\n> ERROR disk full\n> </stdin>" in reply


def test_a_regular_file_on_stdin_is_attached_too(isolated_home, tmp_path):
    """`birdie-tui -p "explain" < notes.txt` attaches the file's text."""
    notes = tmp_path / "notes.txt"
    notes.write_text("the cache is cold\n")
    with notes.open() as stdin:
        proc = run_print(isolated_home, "-p", "explain", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert "<stdin>" in proc.stdout and "the cache is cold" in proc.stdout


def test_dev_null_and_an_empty_pipe_add_nothing(isolated_home):
    """Stdin of /dev/null, or a pipe that ends empty, leaves the message alone, silently."""
    for stdin, text in ((subprocess.DEVNULL, None), (None, "")):
        proc = run_print(isolated_home, "-p", "just this", stdin=stdin, input=text)
        assert proc.returncode == 0, proc.stderr
        assert "<stdin>" not in proc.stdout and "> just this" in proc.stdout
        assert "standard input" not in proc.stderr


def test_a_pipe_nobody_writes_to_is_not_waited_for_forever(isolated_home):
    """A pipe held open but never written (a parent's inherited stdin) is waited for
    BIRDIE_STDIN_WAIT seconds, then the message goes without it, with one line saying so."""
    read_end, write_end = os.pipe()
    try:
        proc = run_print(isolated_home, "-p", "hello", stdin=read_end,
                         env={"BIRDIE_STDIN_WAIT": "0.5"})
    finally:
        os.close(read_end)
        os.close(write_end)
    assert proc.returncode == 0, proc.stderr
    assert "> hello" in proc.stdout and "<stdin>" not in proc.stdout
    notes = [line for line in proc.stderr.splitlines() if "standard input" in line]
    assert len(notes) == 1 and "BIRDIE_STDIN_WAIT" in notes[0]
