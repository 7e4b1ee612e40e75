from pathlib import Path

import pytest

from birdie_tui.store import BirdiePaths


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "birdie-home"


@pytest.fixture
def paths(home: Path) -> BirdiePaths:
    return BirdiePaths(home)
