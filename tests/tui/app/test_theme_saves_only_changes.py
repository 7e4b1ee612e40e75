"""/theme writes only what the user changed into settings.json: keys they never set stay out
of the file (a default pinned there would override a better default later), keys they set and
keys this version does not know are kept as they were. Local door only: settings.json on disk."""

from __future__ import annotations

import json

import pytest

from .conftest import send, wait_for, wait_ready

pytestmark = pytest.mark.app


async def test_theme_on_a_fresh_home_writes_only_the_theme(make_app, isolated_home):
    """No settings.json before: after /theme the file holds the theme and nothing else."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "/theme birdie-light")
        await wait_for(pilot, lambda: (isolated_home / "settings.json").exists())
    assert json.loads((isolated_home / "settings.json").read_text()) == {"theme": "birdie-light"}


async def test_theme_keeps_the_users_keys_and_unknown_keys(make_app, isolated_home):
    """Keys the user wrote (even one equal to its default) and unknown keys survive /theme;
    no other default is added."""
    mine = {"tool_output": "short", "notify": True, "keymap": {"app.sessions": "f2"},
            "from_the_future": {"x": [1, 2]}}
    (isolated_home / "settings.json").write_text(json.dumps(mine))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "/theme birdie-light")
        await wait_for(pilot, lambda: "theme" in json.loads(
            (isolated_home / "settings.json").read_text()))
    assert json.loads((isolated_home / "settings.json").read_text()) == {
        **mine, "theme": "birdie-light"}
