"""A read-only BIRDIE_HOME is named as such, with what to do: `read_only_home` finds it before
sqlite would only say "unable to open database file"."""

from __future__ import annotations

from birdie_tui.store.paths import BirdiePaths, read_only_home
from tests.read_only import read_only


def test_a_writable_home_has_no_problem(tmp_path):
    """A home that exists, or can be created, is writable: None."""
    assert read_only_home(BirdiePaths(tmp_path / "new" / "home"), "tester") is None
    (tmp_path / "home" / "sessions" / "tester").mkdir(parents=True)
    assert read_only_home(BirdiePaths(tmp_path / "home"), "tester") is None


def test_a_read_only_home_is_named_with_what_to_do(tmp_path):
    """An existing home on a read-only mount: one line naming the home, saying it is
    read-only and to set BIRDIE_HOME to a writable folder."""
    home = tmp_path / "home"
    (home / "sessions" / "tester").mkdir(parents=True)
    with read_only(home):
        problem = read_only_home(BirdiePaths(home), "tester")
    assert problem is not None and "\n" not in problem
    assert problem.startswith(f"BIRDIE_HOME {home} is read-only")
    assert "set BIRDIE_HOME to a writable folder" in problem


def test_a_home_that_cannot_be_created_names_the_read_only_parent(tmp_path):
    """No home yet, inside a read-only folder: the line says it cannot be created, and why."""
    parent = tmp_path / "parent"
    parent.mkdir()
    with read_only(parent):
        problem = read_only_home(BirdiePaths(parent / "home"), "tester")
    assert problem == (f"BIRDIE_HOME {parent / 'home'} cannot be created: {parent} is "
                       "read-only; set BIRDIE_HOME to a writable folder (or make this one "
                       "writable)")
