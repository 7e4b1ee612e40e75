"""`mcp-server-time` from PyPI (a real third-party server), driven by an offline-model turn."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from .conftest import mcp_skill, of_type, status_of, turn

pytestmark = pytest.mark.integration


async def test_get_current_time_through_a_turn(skills_root, engine_for):
    """The mcp-server-time server answers get_current_time in a turn; a bad zone is an error."""
    # A bare command: found on PATH, or next to this interpreter (the venv's bin/).
    mcp_skill(skills_root, "time", {"transport": "stdio", "command": "mcp-server-time",
                                    "args": ["--local-timezone", "UTC"]})
    eng = await engine_for()
    events = await turn(eng, 'call get_current_time {"timezone": "UTC"}')
    call = of_type(events, "tool_call")[0]
    assert (call.name, call.args) == ("get_current_time", {"timezone": "UTC"})
    result = of_type(events, "tool_result")[0]
    assert not result.error, result.content
    payload = json.loads(result.content)
    assert payload["timezone"] == "UTC"
    stamp = datetime.fromisoformat(payload["datetime"])
    assert abs(stamp - datetime.now(timezone.utc)) < timedelta(hours=1)
    assert events[-1].type == "done" and "UTC" in events[-1].text
    status = status_of(eng, "time")
    assert status.state == "running" and "convert_time" in status.tools

    events = await turn(eng, 'call get_current_time {"timezone": "Mars/Olympus_Mons"}')
    bad = of_type(events, "tool_result")[0]
    assert bad.error and events[-1].type == "done"
