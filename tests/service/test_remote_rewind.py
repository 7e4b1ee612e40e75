"""Rewind and fork over `--server` (a real `langgraph dev`): the thread's history is cut in
one state update and stays valid, its totals keep what the dropped calls spent, the export
shows them as rewound; a fork is a new thread with the history before the message, counting
only its own calls, the original untouched."""

from __future__ import annotations

import json

import pytest

from birdie_tui.agent.history import history_problems
from birdie_tui.service import BirdieError, remote_birdie

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ECHO = 'call echo_text {"text": "%s"}'


@pytest.fixture(scope="module")
def server(skills_server):
    return skills_server


@pytest.fixture
async def door(server):
    opened = remote_birdie(server.url)
    opened.heard = []  # type: ignore[attr-defined]
    opened.subscribe(opened.heard.append)
    await opened.start()
    yield opened
    await opened.close()


async def _turns(door, *texts: str) -> None:
    for text in texts:
        events = [event async for event in door.send(text)]
        assert events[-1].type == "done", events


async def test_rewind_and_fork_on_a_server_thread(door):
    """Over --server: fork then rewind, the counts of each thread its own, the export shows the
    rewound part, turns go on; rewinding message 1 empties the thread."""
    with pytest.raises(BirdieError, match="nothing to rewind"):
        await door.rewind()
    await _turns(door, ECHO % "one", "two", ECHO % "three")
    sid = door.status().session_id
    spent = (door.ledger().session_in, door.ledger().session_out)
    assert spent[0] > 0

    fork = await door.fork(3)
    assert door.status().session_id == fork != sid
    assert door.status().title.startswith("fork of ")
    assert [t.text for t in await door.history()] == [ECHO % "one", "two"]
    assert (door.status().turns, door.ledger().session_in) == (2, 0)
    await _turns(door, "in the fork")
    own = door.ledger().session_in
    assert 0 < own < spent[0] and door.status().turns == 3

    await door.open_session(sid)
    assert door.ledger().session_in == spent[0]  # the fork's call is the fork's
    with pytest.raises(BirdieError, match="messages 1 to 3"):
        await door.rewind(4)
    assert await door.rewind(2) == "two"
    assert any(e.type == "session" for e in door.heard)
    assert [t.text for t in await door.history()] == [ECHO % "one"]
    assert history_problems(door.shown.messages) == []
    assert door.status().turns == 1
    assert (door.ledger().session_in, door.ledger().session_out) == spent
    data = json.loads(await door.export("json"))
    assert [r["at"] for r in data["rewound"]] == [2]
    assert "## Rewound" in await door.export()
    await _turns(door, "goes on")
    assert door.status().turns == 2 and door.ledger().session_in > spent[0]
    row = next(r for r in door.session_rows() if r.id == sid)
    assert row.turns == 2

    assert await door.rewind(1) == ECHO % "one"  # to an empty history
    assert await door.history() == [] and door.status().turns == 0
    await _turns(door, "afresh")
    assert door.status().turns == 1
