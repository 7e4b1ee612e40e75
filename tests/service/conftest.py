"""A started local front door over the test skills, with every change event it tells."""

from __future__ import annotations

import pytest

from birdie_tui.service import local_birdie
from tests.agent.conftest import write_skills


@pytest.fixture
def skills_dir(tmp_path):
    return write_skills(tmp_path / "skills")


@pytest.fixture
async def birdie(isolated_home, skills_dir):
    door = local_birdie(skills_dirs=[skills_dir], environ={"BIRDIE_HOME": str(isolated_home),
                                                         "USER": "tester"})
    heard: list = []
    door.subscribe(heard.append)
    door.heard = heard  # type: ignore[attr-defined]
    await door.start()
    yield door
    await door.close()
