"""A skill file that is not a regular file (a FIFO named SKILL.MD, a symlink to /dev/zero)
is refused with a true message, at once: it never hangs the loader, `skills check`, `-p` or
the reading of a skill's files, and the other skills still load."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from birdie_tui.regular_files import read_regular
from birdie_tui.skills import load_skills, read_skill_file
from birdie_tui.store.jsonio import read_json
from tests.cli.helpers import run_cli

GOOD = "---\nname: good\ndescription: A fine skill.\n---\nBe good.\n"


def release(fifo: Path) -> None:
    """Opens the FIFO for writing and closes it, so a reader stuck in open() gets EOF (a
    failing test then ends instead of leaving a thread behind)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass  # no reader waiting: nothing to release


def in_thread(fn, *args, fifo: Path):
    """`fn(*args)` in a thread, failing the test if it is still blocked after 10 s."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():
        release(fifo)
        worker.join(5)
        pytest.fail(f"{fn.__name__} blocked on the FIFO {fifo}")
    return out[0]


@pytest.fixture
def hostile_skills(tmp_path) -> Path:
    """A skills folder with a FIFO SKILL.MD, a SKILL.MD linked to /dev/zero and a good skill."""
    root = tmp_path / "skills"
    for name in ("fifo", "zero", "good"):
        (root / name).mkdir(parents=True)
    os.mkfifo(root / "fifo" / "SKILL.MD")
    os.symlink("/dev/zero", root / "zero" / "SKILL.MD")
    (root / "good" / "SKILL.MD").write_text(GOOD)
    return root


def test_the_loader_refuses_a_fifo_and_dev_zero(hostile_skills):
    """The loader returns at once: the good skill loads, the FIFO and /dev/zero are errors
    that say what they are (not "too large (0 bytes)")."""
    result = in_thread(load_skills, [hostile_skills], fifo=hostile_skills / "fifo" / "SKILL.MD")
    assert [s.name for s in result.skills] == ["good"]
    errors = {Path(e.path).parent.name: e.message for e in result.errors}
    assert errors["fifo"] == "cannot read file: not a regular file: a FIFO (named pipe)"
    assert errors["zero"] == "cannot read file: not a regular file: a character device"


def test_skills_check_does_not_hang_on_a_fifo(isolated_home, hostile_skills):
    """`birdie-tui skills check DIR`, a real subprocess, ends and names both bad files."""
    proc = run_cli(isolated_home, "skills", "check", str(hostile_skills), timeout=60)
    assert proc.returncode == 1
    assert "fifo/SKILL.MD: cannot read file: not a regular file: a FIFO" in proc.stdout
    assert "zero/SKILL.MD: cannot read file: not a regular file: a character device" \
        in proc.stdout
    assert "1 skill, 2 errors" in proc.stdout


def test_print_does_not_hang_on_a_fifo(isolated_home, hostile_skills):
    """`birdie-tui -p` with the FIFO among its skills answers and exits."""
    proc = run_cli(isolated_home, "-p", "hello", timeout=90,
                   env={"BIRDIE_SKILLS_DIR": str(hostile_skills), "LLM_VENDOR": "offline"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


def test_a_skill_resource_that_is_a_fifo_is_refused(tmp_path):
    """read_skill_file on a FIFO inside the skill folder says so instead of blocking."""
    folder = tmp_path / "skills" / "ag"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: ag\ndescription: d\n---\nText.\n")
    (skill,) = load_skills([tmp_path / "skills"]).skills
    fifo = folder / "references" / "pipe.md"
    os.mkfifo(fifo)

    def attempt():
        try:
            return read_skill_file(skill, "references/pipe.md")
        except ValueError as exc:
            return str(exc)

    assert in_thread(attempt, fifo=fifo) == \
        "cannot read 'references/pipe.md': not a regular file: a FIFO (named pipe)"


def test_a_settings_file_that_is_a_fifo_is_moved_aside(tmp_path):
    """read_json (settings.json, memory.json, sessions) reports a FIFO and does not block."""
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    said: list[str] = []
    assert in_thread(lambda: read_json(fifo, on_corrupt=said.append, label="settings"),
                     fifo=fifo) is None
    assert "not a regular file: a FIFO" in said[0]


def test_read_regular_reads_a_regular_file_and_refuses_a_folder(tmp_path):
    """Regular files read whole or up to limit + 1 bytes; a folder is IsADirectoryError."""
    path = tmp_path / "f.txt"
    path.write_bytes(b"0123456789")
    assert read_regular(path) == b"0123456789"
    assert read_regular(path, limit=3) == b"0123"
    with pytest.raises(IsADirectoryError):
        read_regular(tmp_path)


def test_print_does_not_hang_on_a_fifo_settings_file(isolated_home):
    """A FIFO at $BIRDIE_HOME/settings.json: `-p` answers, the file is reported and moved
    aside (settings, the database URL and the theme are each read without blocking)."""
    os.mkfifo(isolated_home / "settings.json")
    proc = run_cli(isolated_home, "-p", "hello", timeout=90, env={"LLM_VENDOR": "offline"})
    assert proc.returncode == 0, proc.stderr
    assert "settings.json could not be read (not a regular file: a FIFO" in proc.stderr


def test_saved_theme_skips_a_fifo(isolated_home):
    """The first paint's theme lookup returns None for a FIFO settings.json, at once."""
    from birdie_tui.service.first_paint import saved_theme

    fifo = isolated_home / "settings.json"
    os.mkfifo(fifo)
    assert in_thread(saved_theme, {"BIRDIE_HOME": str(isolated_home)}, fifo=fifo) is None
