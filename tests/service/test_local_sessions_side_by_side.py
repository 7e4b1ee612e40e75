"""The local door keeps sessions side by side: a turn runs on in its session while another is
shown, and the shown session hears of other processes' turns (`session_pulse`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from birdie_tui.service import local_birdie
from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest


async def test_a_turn_runs_on_when_another_session_is_shown(birdie, tmp_path):
    """A turn waiting for an approval while a new session and then an old one are shown:
    answered, it runs the call and ends in its own session, counted and saved there; the
    shown session is untouched, and showing the turn's session again gives its history."""
    await birdie.new_session()
    older = birdie.status().session_id
    [_ async for _ in birdie.send("an older session")]
    await birdie.new_session()
    asked, answer = asyncio.Event(), asyncio.Event()

    async def approver(request: ApprovalRequest) -> ApprovalAnswer:
        asked.set()
        await answer.wait()
        return ApprovalAnswer("allow")

    made = tmp_path / "made"
    stream = birdie.send(f'call touch_file {{"path": "{made}"}}', approver=approver)
    turn = asyncio.create_task(_all(stream))
    await asyncio.wait_for(asked.wait(), 30)
    busy = birdie.status().session_id
    await birdie.new_session()
    await birdie.open_session(older)
    answer.set()
    events = await asyncio.wait_for(turn, 30)
    assert events[-1].type == "done", events[-1]
    assert made.exists()
    assert birdie.status().session_id == older
    assert [item.content for item in await birdie.transcript()][0] == "an older session"
    rows = {row.id: row for row in birdie.session_rows()}
    assert rows[busy].turns == 1 and rows[busy].input_tokens > 0
    assert rows[older].turns == 1
    await birdie.open_session(busy)
    items = await birdie.transcript()
    assert items[-1].role == "assistant" and "interrupted" not in items[-1].content
    assert not await birdie.pending_approvals()


async def _all(stream: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in stream]


async def test_the_pulse_tells_another_process_s_turn_once(birdie, isolated_home, skills_dir):
    """Another door on the same home adds a turn to the shown session: the next pulse says it
    changed and who, once; this door's own turns are never reported."""
    [_ async for _ in birdie.send("mine")]
    sid = birdie.status().session_id
    assert not (await birdie.session_pulse()).changed  # the baseline
    [_ async for _ in birdie.send("mine again")]
    assert not (await birdie.session_pulse()).changed
    other = local_birdie(skills_dirs=[skills_dir], environ={"BIRDIE_HOME": str(isolated_home),
                                                          "USER": "tester"})
    await other.start(session_id=sid)
    try:
        [_ async for _ in other.send("theirs")]
    finally:
        await other.close()
    pulse = await birdie.session_pulse()
    assert pulse.changed and pulse.elsewhere
    assert not (await birdie.session_pulse()).changed
    assert [i.content for i in await birdie.transcript() if i.role == "user"] == [
        "mine", "mine again", "theirs"]
    assert birdie.status().session_id == sid
