"""A run left pending is answered later through the local door (what the TUI's dialog on the
run's session does): the turn that answers it settles the run's record, and goes on as the
agent (its skills, from the session). A finished run's session chatted in later leaves its
record as it was."""

from __future__ import annotations

from birdie_tui.service import local_birdie
from birdie_tui.service.rows import ApprovalAnswer
from birdie_tui.schedules.runner import run_trigger

from .conftest import agent_trigger


async def answer(folders, session_id: str, allow: bool = True) -> list:
    skills, agents = folders
    birdie = local_birdie(skills_dirs=[skills], agents_dirs=[agents])
    await birdie.start(session_id=session_id)
    try:
        pending = await birdie.pending_approvals()
        verdict = ApprovalAnswer("allow") if allow else ApprovalAnswer("deny", reason="no")
        return [event async for event in birdie.resume({r.id: verdict for r in pending})]
    finally:
        await birdie.close()


async def test_a_pending_run_answered_in_its_session_is_done(options, run_log, folders,
                                                              tmp_path):
    """The pending call approved in the run's session runs; the record becomes done, with
    the answer, the session's usage (more than before) and a later end."""
    canary = tmp_path / "canary"
    record = await run_trigger(agent_trigger("Toucher", inputs={"path": str(canary)}),
                               options=options, run_log=run_log)
    assert record.status == "pending" and not canary.exists()

    events = await answer(folders, record.session_id)
    assert [e.type for e in events if e.type in ("tool_result", "done")] == ["tool_result",
                                                                               "done"]
    assert canary.exists()
    settled = run_log.get(record.run_id)
    assert settled.status == "done" and settled.error is None
    assert settled.answer and settled.answer == events[-1].text
    assert settled.output_tokens > record.output_tokens
    assert settled.finished_at > record.finished_at
    assert settled.session_id == record.session_id and settled.started_at == record.started_at


async def test_a_pending_run_denied_later_is_done_without_the_call(options, run_log, folders,
                                                                    tmp_path):
    """Denied instead: the turn ends all the same, the call not run; the record is done."""
    canary = tmp_path / "canary"
    record = await run_trigger(agent_trigger("Toucher", inputs={"path": str(canary)}),
                               options=options, run_log=run_log)
    await answer(folders, record.session_id, allow=False)
    assert not canary.exists()
    assert run_log.get(record.run_id).status == "done"


async def test_a_finished_runs_session_chatted_in_later_keeps_its_record(options, run_log,
                                                                         folders):
    """A message sent later in a done run's session is a conversation of its own."""
    record = await run_trigger(agent_trigger("Repeater", inputs={"text": "x"}),
                               options=options, run_log=run_log)
    skills, agents = folders
    birdie = local_birdie(skills_dirs=[skills], agents_dirs=[agents])
    await birdie.start(session_id=record.session_id)
    try:
        events = [event async for event in birdie.send("and now something else")]
    finally:
        await birdie.close()
    assert events[-1].type == "done"
    assert run_log.get(record.run_id) == record
