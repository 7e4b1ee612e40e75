"""`--print` attaches @-mentions as the TUI does: real subprocesses in a working directory,
the offline model, the stream-json `injected` event carrying each as a `mention` segment."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..conftest import clean_env

pytestmark = pytest.mark.integration


def run_in(home, cwd, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "birdie_tui.cli", *args], env=clean_env(home),
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def test_print_attaches_mentions_and_stream_json_names_them(isolated_home, tmp_path):
    """A file and a range become `mention` segments of the call; a path that does not exist
    stays text; a binary file is said on stderr and the turn still runs (exit 0)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.md").write_text("alpha\nbeta\ngamma\n")
    (work / "blob.bin").write_bytes(b"\x00\x01\x02")
    proc = run_in(isolated_home, work, "--print",
                  "read @notes.md and @notes.md:2 but not @nowhere.txt or @blob.bin",
                  "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert "birdie-tui: @blob.bin not attached: it is a binary file." in proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    injected = next(e for e in events if e["type"] == "injected")
    mentions = [s for s in injected["segments"] if s["kind"] == "mention"]
    assert [(s["name"], s["detail"]) for s in mentions] == [
        ("notes.md", "3 lines"), ("notes.md:2", "lines 2-2 of 3")]
    assert all(s["tokens"] > 0 for s in mentions)


def test_print_without_mentions_sends_the_message_as_typed(isolated_home, tmp_path):
    """No @ in the message: nothing is read and no mention segment appears."""
    proc = run_in(isolated_home, tmp_path, "--print", "hi", "--output-format", "stream-json")
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    injected = next(e for e in events if e["type"] == "injected")
    assert not [s for s in injected["segments"] if s["kind"] == "mention"]
