"""`RemoteBirdie` against a real `langgraph dev` serving the Birdie graph (the test skills,
the offline model): a turn gives the same events, token figures and #context segments as the
local engine; approvals through an approver, left pending and resumed, denied; Esc cancels the
run on the server; a second client on a busy thread gets one line; threads are the sessions;
grants live in the thread's metadata."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from birdie_tui.service import BirdieError, remote_birdie
from tests.service.conftest import remote_doors
from birdie_tui.service.rows import ApprovalAnswer, McpServerSpec

pytestmark = pytest.mark.integration

slow = pytest.mark.slow

ECHO = 'call echo_text {"text": "hi"}'


@pytest.fixture(scope="module")
def server(skills_server):
    return skills_server  # one `langgraph dev` per module, serving the test skills


@pytest.fixture
async def remote(server):
    async for open_door in remote_doors(server.url):
        yield open_door


async def turn(events) -> list:
    return [event async for event in events]


def shape(events) -> list[str]:
    """Event types, a run of tokens as one (chunking is the transport's business)."""
    out: list[str] = []
    for event in events:
        if not (event.type == "token" and out and out[-1] == "token"):
            out.append(event.type)
    return out


async def allow(request):
    return ApprovalAnswer("allow")


@slow
async def test_a_turn_matches_the_local_engine(remote, birdie, monkeypatch, tmp_path):
    """Same skills, same offline model: the same event types in the same order, the same
    token figures per call and in the ledger, the same #context segments."""
    monkeypatch.chdir(tmp_path)  # no project instructions on either side
    door = await remote()
    here = await turn(birdie.send(ECHO))
    there = await turn(door.send(ECHO))
    assert shape(there) == shape(here)
    assert shape(there) == ["injected", "usage", "tool_call", "tool_result", "injected",
                            "token", "usage", "done"]
    usage = [(e.input_tokens, e.output_tokens) for e in there if e.type == "usage"]
    assert usage == [(e.input_tokens, e.output_tokens) for e in here if e.type == "usage"]
    assert there[-1].text == here[-1].text
    ledger, local = door.ledger(), birdie.ledger()
    assert (ledger.session_in, ledger.session_out, ledger.turns) == \
        (local.session_in, local.session_out, local.turns) and ledger.session_in > 0
    assert [c.input for c in ledger.calls] == [c.input for c in local.calls]
    theirs, ours = await door.contexts(), await birdie.contexts()
    assert [c.segments for c in theirs] == [c.segments for c in ours] and len(ours) == 2
    assert [i.role for i in await door.transcript()] == \
        [i.role for i in await birdie.transcript()]
    assert door.status().saved and door.status().turns == 1
    assert door.status().model.startswith("remote: 127.0.0.1:")
    assert "totals" in [e.type for e in door.heard]


@slow
async def test_an_approver_allows_the_call(remote, server):
    """A gated call stops at the server's interrupt; the approver's answer resumes the run."""
    door = await remote()
    target = server.workdir / "allowed.txt"
    events = await turn(door.send(f'call touch_file {{"path": "{target}"}}', approver=allow))
    decided = [e for e in events if e.type == "approval"]
    assert [(e.name, e.decision) for e in decided] == [("touch_file", "approved")]
    assert [e.type for e in events if e.type in ("tool_result", "done")] == \
        ["tool_result", "done"]
    assert target.exists()


@slow
async def test_pending_then_resumed_from_another_client(remote, server):
    """No approver: the turn ends with the call pending in the thread; another client
    opening the thread sees it and `resume` runs it."""
    first = await remote()
    target = server.workdir / "later.txt"
    events = await turn(first.send(f'call touch_file {{"path": "{target}"}}'))
    assert [(e.type, e.decision) for e in events if e.type == "approval"] == \
        [("approval", "pending")]
    assert events[-1].type == "approval" and not target.exists()
    second = await remote(session_id=first.status().session_id)
    pending = await second.pending_approvals()
    assert [r.name for r in pending] == ["touch_file"] and pending[0].skill == "Guarded"
    done = await turn(second.resume({pending[0].id: ApprovalAnswer("allow")}))
    assert done[-1].type == "done" and target.exists()
    assert await second.pending_approvals() == []
    again = await turn(second.resume({pending[0].id: ApprovalAnswer("allow")}))
    assert again[-1].type == "error" and "nothing waits" in again[-1].message


@slow
async def test_deny_reaches_the_model(remote, server):
    """A denied call does not run; the model gets the reason as the tool's error."""
    door = await remote()
    target = server.workdir / "denied.txt"
    await turn(door.send(f'call touch_file {{"path": "{target}"}}'))
    [request] = await door.pending_approvals()
    events = await turn(door.resume({request.id: ApprovalAnswer("deny", reason="not today")}))
    result = next(e for e in events if e.type == "tool_result")
    assert result.error and "not today" in result.content
    assert not target.exists() and events[-1].type == "done"


@slow
async def test_cancel_stops_the_run_and_a_busy_thread_says_so(remote, server):
    """While a run works, a second client on the thread gets the busy line; cancelling the
    turn (Esc) cancels the run on the server and the next turn works."""
    door = await remote()
    await turn(door.send("hello"))  # the thread exists
    marker = server.home / "slow.started"
    marker.unlink(missing_ok=True)
    events: list = []

    async def run():
        async for event in door.send("call slow {}"):
            events.append(event)

    task = asyncio.create_task(run())
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < deadline and not task.done(), events
        await asyncio.sleep(0.1)
    other = await remote(session_id=door.status().session_id)
    busy = await turn(other.send("me too"))
    assert busy[-1].type == "error"
    assert busy[-1].message == (f"session {door.status().session_id} is busy: another "
                                "client is running a turn on it")
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    thread = await door.wire.aio.threads.get(door.status().session_id)
    assert thread["status"] != "busy"
    after = await turn(door.send("still there?"))
    assert after[-1].type == "done", after[-1]


@slow
async def test_threads_are_the_sessions(remote):
    """The browser lists the server's threads with their titles (the first message); a
    rename is kept in the thread's metadata; delete removes the thread."""
    door = await remote()
    await turn(door.send("plan the garden party"))
    sid = door.status().session_id
    other = await remote()
    rows = {row.id: row for row in other.session_rows()}
    assert rows[sid].title == "plan the garden party" and rows[sid].turns == 1
    assert rows[sid].input_tokens == door.ledger().session_in > 0
    assert rows[sid].written_by.startswith(f"{door.status().user}@")
    assert rows[other.status().session_id].current  # the new, unsaved one is listed too
    other.rename_session(sid, "Garden")
    assert {r.id: r.title for r in door.session_rows()}[sid] == "Garden"
    await other.delete_session(sid)
    assert sid not in {r.id for r in other.session_rows()}
    with pytest.raises(BirdieError, match="not found on the server"):
        await other.open_session(sid)


@slow
async def test_the_browser_pages_through_every_thread(remote, monkeypatch):
    """The server's thread search is paged: the browser asks page after page until one is
    short, so a server with more threads than a page lists them all, newest first."""
    from birdie_tui.service import remote as remote_module

    door = await remote()
    made = []
    for n in range(5):
        await door.new_session()
        await turn(door.send(f"thread number {n}"))
        made.append(door.status().session_id)
    everything = [row.id for row in door.session_rows()]
    monkeypatch.setattr(remote_module, "LIST_PAGE", 2)
    paged = [row.id for row in door.session_rows()]
    assert paged == everything and len(paged) >= 5
    assert [i for i in paged if i in made] == made[::-1]


@slow
async def test_grants_live_in_the_thread(remote):
    """A skill turned off is kept in the thread's metadata: another client opening the
    thread sees it off, and the graph no longer offers its tools."""
    door = await remote()
    await turn(door.send("hello"))
    row = door.set_skill("Echoer", False)
    assert not row.enabled
    again = await remote(session_id=door.status().session_id)
    assert not next(r for r in again.skill_rows() if r.name == "Echoer").enabled
    reply = (await turn(again.send("which tools?")))[-1].text
    assert "echo_text" not in reply and "touch_file" in reply
    with pytest.raises(BirdieError, match="not available when attached to a server"):
        await again.compact()


async def test_the_servers_memory_is_shown_not_changed(remote, server):
    """The server's long-term memory (which its runs put in every prompt) is what /memory
    and the #context panel list; /remember says it is the server's."""
    from birdie_tui.store import BirdiePaths, MemoryStore

    store = MemoryStore(BirdiePaths(server.home), "tester")
    note = store.add("the team deploys on Fridays")
    try:
        door = await remote()
        assert [(n.id, n.content) for n in door.memory()] == [(note.id, note.content)]
        await turn(door.send("hello"))
        view = await door.injection()
        assert view.memory == ("the team deploys on Fridays",)
        assert any(s.kind == "memory" for s in view.context.segments)
        with pytest.raises(BirdieError, match="long-term memory is the server's"):
            door.remember("something")
    finally:
        store.delete(note.id)


@pytest.mark.parametrize("url", ["http://127.0.0.1:1"])
async def test_an_unreachable_server_is_one_line(url):
    """No server there: start fails with one sentence naming the URL, nothing left open."""
    door = remote_birdie(url)
    with pytest.raises(BirdieError) as caught:
        await door.start()
    message = str(caught.value)
    assert message.startswith(f"cannot reach the LangGraph server at {url}")
    assert "\n" not in message


def test_every_door_method_is_there_with_the_same_kind():
    """RemoteBirdie implements the whole protocol: each method, async where the door's is."""
    import inspect

    from birdie_tui.service.protocol import Birdie
    from birdie_tui.service.remote import RemoteBirdie

    names = [n for n, v in vars(Birdie).items() if callable(v) and not n.startswith("_")]
    assert len(names) > 40
    assert [n for n in names if not hasattr(RemoteBirdie, n)] == []
    assert [n for n in names if inspect.iscoroutinefunction(getattr(Birdie, n))
            != inspect.iscoroutinefunction(getattr(RemoteBirdie, n))] == []


@slow
async def test_every_command_answers_or_says_one_line(remote):
    """Nothing the TUI can call crashes: each command answers with rows, or raises a
    BirdieError of one line (the local-only ones say they are not available remotely)."""
    door = await remote()
    await turn(door.send(ECHO))
    calls = {
        "status": lambda: door.status(), "ledger": lambda: door.ledger(),
        "settings": lambda: door.settings(), "cost": lambda: door.cost(),
        "skill_rows": lambda: door.skill_rows(), "broken_files": lambda: door.broken_files(),
        "mcp_rows": lambda: door.mcp_rows(), "memory": lambda: door.memory(),
        "model_facts": lambda: door.model_facts(), "model_choices": lambda: door.model_choices(),
        "approval_mode": lambda: door.set_approval_mode("auto"),
        "saved_approvals": lambda: door.saved_approvals(),
        "forget_approvals": lambda: door.forget_approvals(),
        "tool_call_limit": lambda: door.set_tool_call_limit(5),
        "skill_loading": lambda: door.set_skill_loading("model"),
        "auto_compact_percent": lambda: door.auto_compact_percent(),
        "working_dir": lambda: door.working_dir(), "resume_command": lambda: door.resume_command(),
        "transcript": door.transcript, "injection": door.injection, "contexts": door.contexts,
        "history": door.history, "tools": door.tools, "export": door.export,
        "pending_approvals": door.pending_approvals, "watch_skills": door.watch_skills,
        "reload_skills": door.reload_skills,
        "remember": lambda: door.remember("x"), "forget": lambda: door.forget("x"),
        "change_dir": lambda: door.change_dir("/"), "set_auto_compact": lambda: door.set_auto_compact(50),
        "new_skill": lambda: door.new_skill("x"), "switch_model": lambda: door.switch_model("openai"),
        "restart_mcp": lambda: door.restart_mcp("x"), "compact": door.compact,
        "take_last_turn": door.take_last_turn,
        "attach_mcp_servers": lambda: door.attach_mcp_servers([McpServerSpec("x", command="x")]),
    }
    refused = []
    for name, call in calls.items():
        try:
            answer = call()
            if asyncio.iscoroutine(answer):
                await answer
        except BirdieError as exc:
            assert "\n" not in str(exc)
            refused.append(name)
    assert sorted(refused) == sorted(["remember", "forget", "change_dir", "set_auto_compact",
                                      "new_skill", "switch_model", "restart_mcp", "compact",
                                      "take_last_turn", "attach_mcp_servers"])
    again = await remote(session_id=door.status().session_id)
    assert again.approval_mode() == "auto" and again.tool_call_limit() == 5
    assert again.skill_loading() == "model"
    assert (await again.export("json")).count('"turn": 1') >= 1
    assert [row.turn for row in again.cost().per_turn] == [1]
    assert again.cost().input == again.ledger().session_in > 0
