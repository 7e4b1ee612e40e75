"""A started local front door over the test skills, with every change event it tells."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from birdie_tui.service import local_birdie, remote_birdie
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


async def remote_doors(url: str) -> AsyncIterator[Callable[..., Awaitable[Any]]]:
    """Body of a `remote` fixture: a factory of started remote doors on the server at `url`,
    each keeping the change events it heard, all closed at the end."""
    doors = []

    async def open_door(**start: Any) -> Any:
        door = remote_birdie(url)
        door.heard = []  # type: ignore[attr-defined]
        door.subscribe(door.heard.append)
        await door.start(**start)
        doors.append(door)
        return door

    yield open_door
    for door in doors:
        await door.close()
