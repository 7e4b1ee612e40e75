"""A really read-only folder for tests that run as root (where chmod stops no write): a
read-only bind mount of the folder over itself, removed afterwards. Skips, saying why, where
mounting is not permitted."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30)


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """`folder` read-only for everyone (root included) inside the block."""
    folder = Path(folder)
    bound = _run("mount", "--bind", str(folder), str(folder))
    if bound.returncode != 0:
        pytest.skip(f"a read-only bind mount is not permitted here: {bound.stderr.strip()}")
    try:
        ro = _run("mount", "-o", "remount,bind,ro", str(folder))
        if ro.returncode != 0:
            pytest.skip(f"cannot remount read-only: {ro.stderr.strip()}")
        probe = folder / ".write-probe"
        try:
            probe.touch()
        except OSError:
            pass  # the folder is read-only, as wanted
        else:
            probe.unlink()
            pytest.skip("the read-only bind mount still accepts writes here")
        yield folder
    finally:
        _run("umount", str(folder))
        assert not os.path.ismount(folder), f"{folder} is still mounted"
