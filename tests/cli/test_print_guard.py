"""`--print`'s last guard: a database or server lost at any moment is one line, not a traceback."""

from __future__ import annotations

import pytest

from birdie_tui.cli import headless
from birdie_tui.store.pg.connect import DatabaseUnavailable


def test_a_database_lost_anywhere_in_a_run_is_one_line(capsys):
    """DatabaseUnavailable from any step (a pending-approval read, a checkpoint write) ends
    the run with its own line and exit 1."""

    async def run() -> int:
        raise DatabaseUnavailable("the database at postgresql://db.example/t stopped answering")

    assert headless._guarded(run) == headless.EXIT_TURN_FAILED
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["birdie-tui: the database at postgresql://db.example/t stopped answering"]


def test_another_connection_error_is_not_hidden():
    """A ConnectionError that is not already a sentence for the user is a bug: it propagates."""

    async def run() -> int:
        raise ConnectionResetError("peer reset")

    with pytest.raises(ConnectionResetError):
        headless._guarded(run)
