"""The doors the contract suite runs over: the local engine, the fake door of the TUI tests,
and the remote door when a `langgraph dev` can be started (slow: ~10 s to start one)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from birdie_tui.service import Birdie, ChangeEvent, local_birdie, remote_birdie
from tests.agent.conftest import write_skills
from tests.tui.fake_door import FakeDoor


class Heard(list[ChangeEvent]):
    """Every change event a door told its listener."""


@pytest.fixture(params=["local", "fake", pytest.param("remote", marks=pytest.mark.slow)])
async def door(request, isolated_home, tmp_path) -> AsyncIterator[tuple[Birdie, Heard]]:
    """A started door of each kind, with the change events it tells."""
    made: Birdie
    if request.param == "local":
        made = local_birdie(skills_dirs=[write_skills(tmp_path / "skills")],
                            environ={"BIRDIE_HOME": str(isolated_home), "USER": "tester"})
    elif request.param == "fake":
        made = FakeDoor()
    else:
        server = request.getfixturevalue("lg_server")
        made = remote_birdie(server.url, user="tester")
    heard = Heard()
    made.subscribe(heard.append)
    await made.start()
    try:
        yield made, heard
    finally:
        await made.close()
