"""Helpers for driving the real BirdieApp under Pilot: it boots its engine in a worker, so
tests wait for readiness and for turns to finish by polling app state, never by sleeping long."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from birdie_tui.tui import create_app
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from tests.agent.conftest import write_skills


async def wait_for(pilot, predicate, timeout: float = 15.0, step: float = 0.05):
    waited = 0.0
    while not predicate():
        await pilot.pause(step)
        waited += step
        if waited > timeout:
            raise AssertionError("condition not met in time")


async def wait_ready(pilot, app):
    await wait_for(pilot, lambda: app.birdie is not None and app.ready.is_set())
    await pilot.pause()


async def wait_turn(pilot, app):
    from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage

    await wait_for(pilot, lambda: not app.main.turn_running)
    # Replies finish rendering in their own workers, after the turn itself.
    await wait_for(pilot, lambda: all(r.rendered for r in app.query(AssistantMessage)))
    await pilot.pause()


async def send(pilot, app, text: str):
    composer = app.query_one("#composer")
    composer.load_text(text)
    composer.focus()
    await pilot.press("enter")


def write_session(home: Path, sid: str, *, title=None, turns=0, user="tester",
                  enabled=(), disabled=(), stamp="2026-01-02T09:30:00+00:00", tokens=(0, 0)):
    """A session file with fixed timestamps (deterministic snapshots)."""
    folder = home / "sessions" / user
    folder.mkdir(parents=True, exist_ok=True)
    data = {"id": sid, "user_id": user, "created_at": stamp, "updated_at": stamp,
            "turns": turns, "enabled_skills": list(enabled), "disabled_skills": list(disabled),
            "title": title, "input_tokens": tokens[0], "output_tokens": tokens[1],
            "token_log": []}
    (folder / f"{sid}.json").write_text(json.dumps(data))
    return folder / f"{sid}.json"


@pytest.fixture
def skills_dir(tmp_path) -> Path:
    return write_skills(tmp_path / "skills")


@pytest.fixture
def make_app(skills_dir):
    def factory(*argv: str):
        return create_app(["--skills-dir", str(skills_dir), *argv], cursor_blink=False)

    return factory


# What a test reads of Birdie, through the door only (no engine reach: the same tests can run
# over the fake door, and the remote one).
def session_id(app) -> str:
    return app.birdie.status().session_id


def turns(app) -> int:
    return app.birdie.status().turns


def row_of(app, sid: str):
    """The session browser's row of `sid`."""
    return next(row for row in app.birdie.session_rows() if row.id == sid)


def last_reply(app) -> str:
    """The text of the last reply in the chat ("" before any)."""
    replies = list(app.query(AssistantMessage))
    return replies[-1].text if replies else ""


def skill(app, name: str):
    return next(row for row in app.birdie.skill_rows() if row.name == name)


def enabled(app, name: str) -> bool:
    return skill(app, name).enabled


def is_fake(app) -> bool:
    """The app runs over the fake door: what only the engine does (its files, its offline
    model's wording) is not asked of it."""
    from tests.tui.fake_door import FakeDoor

    return isinstance(app.birdie, FakeDoor)


async def unpace(app, monkeypatch) -> None:
    """Replies at full speed again after a paced part of a test (BIRDIE_OFFLINE_TPS): the fake
    reads it per token; the local door's offline model is built again (`switch_model`)."""
    monkeypatch.delenv("BIRDIE_OFFLINE_TPS")
    if not is_fake(app):
        await app.birdie.switch_model("offline")  # the same model, unpaced


@pytest.fixture(params=["local", "fake"])
def any_app(request, skills_dir):
    """`make_app` over each door: the local engine, and the fake door (tests/tui/fake_door.py),
    whose skills and tools are named as `write_skills` names them. `door=` gives the fake
    door to use (e.g. with more skills); the local door ignores it. A test that needs the real
    engine (its files on disk, its settings.json) takes `make_app` instead."""
    from tests.tui.fake_door import FakeDoor

    def factory(*argv: str, door: FakeDoor | None = None):
        made = FakeDoor.factory(door) if request.param == "fake" else None
        return create_app(["--skills-dir", str(skills_dir), *argv], cursor_blink=False,
                          door_factory=made)

    factory.kind = request.param
    return factory
