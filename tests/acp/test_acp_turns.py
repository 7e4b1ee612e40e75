"""How a turn's events end an ACP prompt (`acp/turns.py`), over the fake door's scripted turns:
the stop reason and tokens a client gets back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp import RequestError

from birdie_tui.acp.turns import FolderGate, TurnRelay
from birdie_tui.agent.graph import limit_text
from birdie_tui.events import ToolCallStarted, ToolFinished, TurnDone, TurnError, UsageReported
from tests.tui.fake_door import FakeDoor


async def relay(door: FakeDoor, tmp_path) -> tuple[Any, list[Any]]:
    sent: list[Any] = []

    async def send(session_id: str, update: Any) -> None:
        sent.append(update)

    await door.start()
    await door.new_session()
    sid = door.save_session()
    turns = TurnRelay(door, asyncio.Lock(), FolderGate(), send)
    return await turns.run(sid, str(tmp_path), None, "go"), sent  # type: ignore[arg-type]


async def test_a_turn_cut_by_the_tool_call_limit_ends_with_max_turn_requests(tmp_path):
    """A call the engine refused with its tool-call limit note (the engine's own wording)
    makes the prompt's stop reason `max_turn_requests`; the tokens are the turn's."""
    door = FakeDoor(script=lambda text: [
        ToolCallStarted(id="c1", name="run_bash", args={"command": "ls"}),
        ToolFinished(id="c1", name="run_bash", content=limit_text(3), error=True),
        UsageReported(input_tokens=10, output_tokens=2), TurnDone(text="enough")])
    answer, sent = await relay(door, tmp_path)
    assert answer.stop_reason == "max_turn_requests"
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (10, 2)
    assert [u.session_update for u in sent] == ["tool_call", "tool_call_update"]


async def test_a_plain_turn_ends_with_end_turn_and_a_failed_one_with_an_error(tmp_path):
    """A turn that finishes is `end_turn`; one that ends in an error is the protocol's
    internal error carrying its one line."""
    answer, _ = await relay(FakeDoor(script=lambda text: [TurnDone(text="ok")]), tmp_path)
    assert answer.stop_reason == "end_turn"
    with pytest.raises(RequestError) as failed:
        await relay(FakeDoor(script=lambda text: [TurnError(message="provider said 500")]),
                    tmp_path)
    assert failed.value.data == {"message": "provider said 500"}
