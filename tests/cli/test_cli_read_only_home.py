"""`--print` with a read-only BIRDIE_HOME: one line on stderr naming the home and what to do,
a non-zero exit, no traceback, and nothing from sqlite ("unable to open database file")."""

from __future__ import annotations

import pytest

from tests.read_only import read_only

from .helpers import assert_one_line_error, run_cli

pytestmark = pytest.mark.integration


def test_print_with_a_read_only_home_says_so_in_one_line(isolated_home):
    """A home that held a session (its database too) made read-only: -p fails in one line."""
    first = run_cli(isolated_home, "-p", "hello")
    assert first.returncode == 0, first.stderr
    with read_only(isolated_home):
        proc = run_cli(isolated_home, "-p", "hello again")
    line = assert_one_line_error(proc)
    assert f"BIRDIE_HOME {isolated_home} is read-only" in line
    assert "set BIRDIE_HOME to a writable folder" in line
    assert "unable to open database file" not in line


def test_print_with_a_fresh_read_only_home_says_so_in_one_line(isolated_home):
    """A home never used (empty) and read-only: the same one line, not an OSError."""
    with read_only(isolated_home):
        proc = run_cli(isolated_home, "-p", "hello")
    line = assert_one_line_error(proc)
    assert f"BIRDIE_HOME {isolated_home} is read-only" in line and "OSError" not in line
