"""One run of a trigger (`schedules/runner.py`) on the offline model with real sqlite
sessions: a run is a session titled and marked as the run, configured as the agent's child;
its record is saved running first and ended whatever happens (done, pending, failed,
cancelled)."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest

from birdie_tui.agent.engine import Engine
from birdie_tui.schedules.models import Trigger
from birdie_tui.schedules.message import run_prompt
from birdie_tui.schedules.runner import run_trigger

from .conftest import agent_trigger

ECHO_AGENT = """
    ---
    name: Echo
    description: Echoes through a tool of its own skill.
    allowed_skills: [Echoer]
    ---

    ## Prompt

    call echo_text {"text": "from the run"}
    """


async def session_of(options, session_id: str):
    engine = Engine(options)
    await engine.start()
    try:
        await engine.open_session(session_id)
        return engine.require_session(), await engine.messages()
    finally:
        await engine.aclose()


async def test_a_run_is_a_session_titled_and_marked_with_its_record(options, run_log):
    """An `every` run of an agent: the session is titled "<agent> · every 1s", its extra marks
    the run, it holds the agent's rendered prompt; the record was saved running with the
    session, then done with the answer, usage, the trigger and the host."""
    trigger = agent_trigger("Repeater", inputs={"text": "hello"})
    record = await run_trigger(trigger, options=options, run_log=run_log)

    assert record.status == "done", record.error
    assert record.trigger_key == "Repeater:every" and record.trigger == "every 1s"
    assert record.agent == "Repeater" and record.user == "tester"
    assert "Please repeat: hello" in (record.answer or "")
    assert record.input_tokens > 0 and record.output_tokens > 0
    assert record.finished_at is not None and record.duration_s is not None
    assert record.host.endswith(f":{__import__('os').getpid()}")
    statuses = [(saved.status, saved.session_id) for saved in run_log.saves]
    assert statuses[0] == ("running", None)
    assert ("running", record.session_id) in statuses  # the session named before the turn
    meta, messages = await session_of(options, record.session_id)
    assert meta.title == "Repeater · every 1s"
    assert meta.extra["run"] == {"run_id": record.run_id, "trigger_key": "Repeater:every",
                                 "agent": "Repeater", "approval": "read-only"}
    assert messages[0].content == "Please repeat: hello"
    assert meta.input_tokens == record.input_tokens


async def test_a_run_has_only_its_agents_skills(options, run_log, tmp_path):
    """The run's session grants exactly the agent's `allowed_skills`, as its child would."""
    record = await run_trigger(agent_trigger("Toucher", approval="auto",
                                             inputs={"path": str(tmp_path / "x")}),
                               options=options, run_log=run_log)
    meta, _ = await session_of(options, record.session_id)
    assert meta.enabled_skills == ["Guarded"]
    assert "Echoer" in meta.disabled_skills


async def test_a_watch_run_lists_the_changed_paths_after_the_prompt(options, run_log):
    """The changed paths are listed after the agent's prompt and kept in the record."""
    trigger = agent_trigger("Repeater", "watch", watch=("drafts/*.md",),
                            inputs={"text": "new drafts"})
    record = await run_trigger(trigger, options=options, run_log=run_log,
                               changed_paths=["drafts/a.md", "drafts/b.md"])
    assert record.status == "done" and record.changed_paths == ("drafts/a.md", "drafts/b.md")
    _, messages = await session_of(options, record.session_id)
    assert messages[0].content == ("Please repeat: new drafts\n\nChanged paths:\n"
                                   "- drafts/a.md\n- drafts/b.md")


async def test_a_settings_schedule_sends_its_prompt(options, run_log):
    """A settings schedule (no agent) sends its prompt; the title names the schedule."""
    trigger = Trigger(key="schedule:morning", kind="every", agent=None, every_s=3600,
                      prompt="summarise the inbox")
    record = await run_trigger(trigger, options=options, run_log=run_log)
    assert record.status == "done" and record.agent is None
    meta, messages = await session_of(options, record.session_id)
    assert meta.title == "morning · every 1h"
    assert messages[0].content == "summarise the inbox"


async def test_read_only_leaves_a_gated_call_pending(options, run_log, tmp_path):
    """read-only (the default): the agent's call that needs approval does not run; the run
    ends pending, saying which call waits, its session resumable."""
    canary = tmp_path / "canary"
    record = await run_trigger(agent_trigger("Toucher", inputs={"path": str(canary)}),
                               options=options, run_log=run_log)
    assert record.status == "pending", record.error
    assert record.error is not None and record.error.startswith("waits for approval: touch_file")
    assert not canary.exists()
    engine = Engine(options)
    await engine.start()
    try:
        await engine.open_session(record.session_id)
        assert [r.name for r in await engine.pending_approvals()] == ["touch_file"]
    finally:
        await engine.aclose()


async def test_auto_runs_a_gated_call(options, run_log, tmp_path):
    """auto: every call runs; the run is done."""
    canary = tmp_path / "canary"
    record = await run_trigger(agent_trigger("Toucher", approval="auto",
                                             inputs={"path": str(canary)}),
                               options=options, run_log=run_log)
    assert record.status == "done", record.error
    assert canary.exists()


@pytest.fixture
def echo_options(options, folders):
    _, agents = folders
    (agents / "echo").mkdir()
    (agents / "echo" / "AGENT.MD").write_text(textwrap.dedent(ECHO_AGENT).lstrip())
    return options


@pytest.mark.parametrize(("approval", "allow", "status"), [
    ("read-only", (), "done"), ("ask", (), "pending"), ("ask", ("echo_text",), "done")])
async def test_ask_leaves_every_call_not_allowed_pending(echo_options, run_log, approval,
                                                         allow, status):
    """A call that needs no approval runs under read-only; under ask it waits, unless one of
    the trigger's `allow` rules runs it."""
    record = await run_trigger(agent_trigger("Echo", approval=approval, allow=allow),
                               options=echo_options, run_log=run_log)
    assert record.status == status, record.error


async def test_a_crash_is_a_failed_run_that_keeps_its_session(options, run_log, monkeypatch):
    """Something raising inside the run: the record ends failed with one line, naming the
    session, which is kept."""
    def broken(self, text, **kw):
        raise RuntimeError("the engine broke\nsecond line")

    monkeypatch.setattr(Engine, "run_turn", broken)
    record = await run_trigger(agent_trigger("Repeater", inputs={"text": "x"}),
                               options=options, run_log=run_log)
    assert record.status == "failed"
    assert record.error == "RuntimeError: the engine broke"
    assert record.session_id is not None and record.finished_at is not None
    meta, _ = await session_of(options, record.session_id)
    assert meta.extra["run"]["run_id"] == record.run_id


async def test_an_unknown_agent_is_a_failed_run(options, run_log):
    """A trigger naming an agent no folder holds: failed, saying so."""
    record = await run_trigger(agent_trigger("Nobody"), options=options, run_log=run_log)
    assert record.status == "failed"
    assert record.error == "no agent named 'Nobody' in the agent folders"
    assert run_log.get(record.run_id) == record


async def test_a_cancelled_run_is_recorded_cancelled(options, run_log, isolated_home):
    """The task cancelled while a tool runs (SIGTERM in the scheduler): the record ends
    cancelled, the session kept, and the cancellation goes on to the caller."""
    task = asyncio.create_task(run_trigger(agent_trigger("Sleeper", approval="auto"),
                                           options=options, run_log=run_log))
    marker = isolated_home / "slow.started"
    for _ in range(400):
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.exists(), [r.error for r in run_log.saves]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 60)
    (record,) = run_log.list()
    assert record.status == "cancelled" and record.finished_at is not None
    meta, _ = await session_of(options, record.session_id)
    assert meta.extra["run"]["run_id"] == record.run_id


def test_a_markdown_agent_without_a_task_runs_with_a_default_message():
    """The prompt of a run whose agent renders nothing: the trigger's prompt, else a line."""
    from birdie_tui.agent_files.models import AgentDef

    agent = AgentDef(name="md", description="d", prompt="", format="markdown")
    trigger = agent_trigger("md")
    assert run_prompt(trigger, agent) == "Run now (every 1s)."
    assert run_prompt(trigger, agent, ["a.txt"]) == "Run now (every 1s).\n\nChanged paths:\n- a.txt"
    assert json.dumps(run_prompt(Trigger(key="md:every", kind="every", agent="md",
                                         inputs={"task": "do it"}), agent)) == '"do it"'


async def test_a_markdown_agents_body_is_the_runs_system_prompt(options, run_log, folders):
    """A Markdown agent's body is the system prompt of its run's model calls, as its child's;
    its `task` input is the message."""
    _, agents = folders
    (agents / "digest.md").write_text("---\nname: digest\ndescription: Writes a digest.\n"
                                      "---\nYou write a short digest.\n")
    record = await run_trigger(agent_trigger("digest", inputs={"task": "digest the news"}),
                               options=options, run_log=run_log)
    assert record.status == "done", record.error
    engine = Engine(options)
    await engine.start()
    try:
        (context,) = await engine.contexts(record.session_id)
    finally:
        await engine.aclose()
    assert "system_prompt" in [segment.kind for segment in context.segments]
