"""$BIRDIE_HOME/input_history.jsonl (ctrl+r): newest first and each once, private, bounded,
a corrupt line skipped, a FIFO in its place never a hang."""

from __future__ import annotations

import json
import os
import stat

from birdie_tui.store.input_history import ENTRY_CHARS, InputHistory
from birdie_tui.store.paths import BirdiePaths


def test_entries_are_newest_first_each_once_and_the_file_is_private(tmp_path):
    """A repeat moves to the front once, blanks are not kept, text is kept as typed, 0600."""
    history = InputHistory(BirdiePaths(tmp_path / "home").input_history_file)
    for text in ["one", "two", "one", "multi\nline [markup]", "  "]:
        history.add(text)
    assert history.entries() == ["multi\nline [markup]", "one", "two"]
    assert history.entries(limit=1) == ["multi\nline [markup]"]
    path = tmp_path / "home" / "input_history.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [json.loads(line) for line in path.read_text().splitlines()] == [
        "one", "two", "one", "multi\nline [markup]"]


def test_corrupt_lines_are_skipped(tmp_path):
    """A line that is not a JSON string (an object, bad JSON, bad UTF-8, a number, a torn write) is skipped; the rest is read and appending goes on."""
    path = tmp_path / "input_history.jsonl"
    path.write_bytes(b'"kept"\n{"not": "a string"}\nnot json\n\xff\xfe\n42\n"torn\n"last"\n')
    assert InputHistory(path).entries() == ["last", "kept"]
    InputHistory(path).add("after")
    assert InputHistory(path).entries()[0] == "after"


def test_the_file_stays_bounded_and_keeps_the_newest(tmp_path):
    """Past its size bound the file is rewritten with its newest entries, still private."""
    path = tmp_path / "input_history.jsonl"
    history = InputHistory(path, limit=50, max_bytes=4_000)
    for n in range(2_000):
        history.add(f"message number {n}")
    assert path.stat().st_size <= 4_000 + 100
    entries = history.entries()
    assert entries[0] == "message number 1999" and len(entries) <= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the rewrite too


def test_a_huge_message_is_not_remembered(tmp_path):
    """A message over ENTRY_CHARS is sent but not kept: it would crowd out the rest."""
    history = InputHistory(tmp_path / "input_history.jsonl")
    history.add("x" * (ENTRY_CHARS + 1))
    history.add("small")
    assert history.entries() == ["small"]


def test_a_fifo_in_its_place_neither_hangs_nor_fails(tmp_path):
    """A FIFO named like the file: appending fails at once and reading finds nothing."""
    path = tmp_path / "input_history.jsonl"
    os.mkfifo(path)
    history = InputHistory(path)
    history.add("lost, not hung")
    assert history.entries() == []


def test_an_unwritable_home_loses_the_line_without_an_error(tmp_path):
    """A home that cannot be written: the line is lost, the app is not."""
    home = tmp_path / "ro"
    home.mkdir()
    home.chmod(0o500)
    try:
        history = InputHistory(home / "input_history.jsonl")
        history.add("nowhere to go")
        assert history.entries() == [] or os.geteuid() == 0
    finally:
        home.chmod(0o700)
