"""The Birdie agent served by a real `langgraph dev`, driven through langgraph-sdk as the
remote client drives it: approvals as interrupts, grants from thread metadata, the injected
event as JSON, usage and provenance in thread state, cancellation, the catalog graph."""

from __future__ import annotations

import asyncio
import json

import pytest

from birdie_tui.agent.approvals import ApprovalAnswer
from birdie_tui.events import SkillsInjected
from birdie_tui.agent.history import INTERRUPTED_TOOL_TEXT
from birdie_tui.agent.wire import injected_from_wire, injected_to_wire
from birdie_tui.skills.bundled import bundled_skills_dir
from birdie_tui.skills.loader import load_skills
from tests.server.sdk_turns import (
    answer,
    call,
    human,
    messages,
    new_thread,
    records,
    stream,
)

pytestmark = [pytest.mark.slow, pytest.mark.integration]


async def test_a_gated_call_stops_for_approval_and_runs_once_allowed(lg_server):
    """write_file (approval: ask) interrupts with the request as JSON, the pending request is
    in the thread state, and resuming with "allow" runs it in the server's working dir."""
    client, tid = await new_thread(lg_server)
    first = await stream(client, tid, input=human(call("write_file", path="allowed.txt",
                                                       content="hello\n")))
    assert first.errors == []
    [request] = first.interrupts
    assert (request.name, request.skill) == ("write_file", "filesystem")
    assert request.args == {"path": "allowed.txt", "content": "hello\n"}
    assert "+hello" in (request.diff or "")
    state = await client.threads.get_state(tid)
    assert [i["value"]["approvals"][0]["id"] for i in state["interrupts"]] == [request.id]
    assert not (lg_server.workdir / "allowed.txt").exists()

    second = await answer(client, tid, {request.id: ApprovalAnswer("allow")})
    assert second.errors == []
    assert second.approvals == [{"id": request.id, "name": "write_file",
                                 "decision": "approved"}]
    assert (lg_server.workdir / "allowed.txt").read_text() == "hello\n"
    history = await messages(client, tid)
    result = next(m for m in history if m["type"] == "tool")
    assert result["tool_call_id"] == request.id and result["status"] == "success"
    assert history[-1]["type"] == "ai" and not history[-1]["tool_calls"]
    assert (await client.threads.get_state(tid))["interrupts"] == []


async def test_a_denied_call_does_not_run_and_the_model_hears_why(lg_server):
    """Resuming with "deny" and a reason: no file, an error result carrying the reason, and a
    `denied` approval event."""
    client, tid = await new_thread(lg_server)
    first = await stream(client, tid, input=human(call("write_file", path="denied.txt",
                                                       content="no\n")))
    [request] = first.interrupts
    second = await answer(client, tid, {request.id: ApprovalAnswer("deny", reason="not now")})
    assert second.approvals == [{"id": request.id, "name": "write_file", "decision": "denied"}]
    assert not (lg_server.workdir / "denied.txt").exists()
    result = next(m for m in await messages(client, tid) if m["type"] == "tool")
    assert result["status"] == "error"
    assert "The user denied this tool call. Reason: not now" in result["content"]


async def test_a_skill_disabled_in_thread_metadata_offers_no_tools(lg_server):
    """`disabled_skills` in the thread's metadata: the skill's tools are not bound (the
    offline model says which are), nothing is asked or run; another thread still has them."""
    client, tid = await new_thread(lg_server, disabled_skills=["filesystem"])
    run = await stream(client, tid, input=human(call("write_file", path="off.txt",
                                                     content="x")))
    assert run.interrupts == [] and run.tool_results() == []
    reply = (await messages(client, tid))[-1]["content"]
    assert "`write_file` is not available" in reply
    bound = reply.partition("Bound tools:")[2]
    assert "`run_bash`" in bound and "write_file" not in bound and "read_file" not in bound
    assert not (lg_server.workdir / "off.txt").exists()
    [injected, *_] = run.injected
    assert "filesystem" not in {s["name"] for s in injected["skills"]}
    catalog = next(s for s in injected["segments"] if s["kind"] == "catalog")
    assert "filesystem" not in json.dumps(catalog)

    other, tid2 = await new_thread(lg_server)
    again = await stream(other, tid2, input=human(call("write_file", path="on.txt",
                                                       content="x")))
    assert [r.name for r in again.interrupts] == ["write_file"]


@pytest.mark.parametrize("grants", [
    {"approval_rules": ["write_file(*)"]},
    {"approval_mode": "auto"},
    {"approved_skills": ["filesystem"]},
], ids=["rule", "auto", "approved-skill"])
async def test_saved_approvals_in_metadata_skip_the_interrupt(lg_server, grants):
    """An allow rule, auto mode or an approved skill in the thread's metadata: the call runs
    at once (reported `approved`), with no interrupt."""
    client, tid = await new_thread(lg_server, **grants)
    name = f"auto-{next(iter(grants))}.txt"
    run = await stream(client, tid, input=human(call("write_file", path=name, content="ok")))
    assert run.interrupts == []
    assert [a["decision"] for a in run.approvals] == ["approved"]
    assert (lg_server.workdir / name).read_text() == "ok"


async def test_read_only_mode_denies_without_asking(lg_server):
    """approval_mode read-only: the gated call is denied at once, nothing written."""
    client, tid = await new_thread(lg_server, approval_mode="read-only")
    run = await stream(client, tid, input=human(call("write_file", path="ro.txt",
                                                     content="x")))
    assert run.interrupts == []
    assert [a["decision"] for a in run.approvals] == ["denied"]
    assert not (lg_server.workdir / "ro.txt").exists()


async def test_the_injected_event_arrives_as_json_and_round_trips(lg_server):
    """Each model call streams `{"injected": dict}`; wire.py turns it back into the event,
    and back into exactly the dict the server sent."""
    client, tid = await new_thread(lg_server)
    run = await stream(client, tid, input=human("hello there"))
    [data] = run.injected
    event = injected_from_wire(data)
    assert isinstance(event, SkillsInjected)
    assert injected_to_wire(event) == data
    assert {(s.name, s.reason) for s in event.skills} >= {("planning", "always_inject")}
    assert event.context is not None and (event.context.turn, event.context.call) == (1, 1)
    assert "".join(run.tokens).strip()


async def test_usage_and_provenance_travel_on_the_ai_messages(lg_server):
    """The thread state alone gives token figures and the #context records: every AI message
    has usage and its call's provenance (turn, call, segments up to the history)."""
    client, tid = await new_thread(lg_server, approval_mode="auto")
    await stream(client, tid, input=human(call("list_files")))
    await stream(client, tid, input=human("and now?"))
    history = await messages(client, tid)
    ais = [m for m in history if m["type"] == "ai"]
    assert len(ais) == 3
    assert all(m["usage_metadata"]["input_tokens"] > 0 for m in ais)
    assert all(m["usage_metadata"]["output_tokens"] > 0 for m in ais)
    assert [(r.turn, r.call) for r in records(history)] == [(1, 1), (1, 2), (2, 1)]
    assert all(r.segments[-1].kind == "history" for r in records(history))


async def _wait_for_tool_call(client, tid: str) -> None:
    for _ in range(400):
        history = (await client.threads.get_state(tid))["values"].get("messages", [])
        if any(m["type"] == "ai" and m["tool_calls"] for m in history):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the run never reached its tool call")


async def test_a_cancelled_run_leaves_a_thread_that_takes_a_new_message(lg_server):
    """Cancelling a run while its tool runs: the stand-in result keeps the history valid, and
    the next message is answered normally."""
    client, tid = await new_thread(lg_server, approval_mode="auto")
    run = await client.runs.create(tid, "birdie", input=human(call(
        "run_bash", command="sleep 30")))
    await _wait_for_tool_call(client, tid)
    await client.runs.cancel(tid, run["run_id"], wait=True)
    assert (await client.runs.get(tid, run["run_id"]))["status"] in ("interrupted", "error")

    after = await stream(client, tid, input=human("still there?"))
    assert after.errors == []
    history = await messages(client, tid)
    tool = next(m for m in history if m["type"] == "tool")
    assert tool["content"] == INTERRUPTED_TOOL_TEXT
    assert [m["type"] for m in history[-2:]] == ["human", "ai"]
    assert history[-1]["content"] and not history[-1]["tool_calls"]


async def test_a_new_message_instead_of_an_answer_closes_the_pending_step(lg_server):
    """A thread waiting for approval gets a new message instead: the waiting call never
    runs, and the new turn is answered."""
    client, tid = await new_thread(lg_server)
    first = await stream(client, tid, input=human(call("write_file", path="moved-on.txt",
                                                       content="x")))
    assert first.interrupts
    after = await stream(client, tid, input=human("never mind"))
    assert after.errors == [] and after.interrupts == []
    history = await messages(client, tid)
    assert history[-1]["type"] == "ai" and not history[-1]["tool_calls"]
    assert not (lg_server.workdir / "moved-on.txt").exists()
    assert (await client.threads.get_state(tid))["interrupts"] == []


async def test_birdie_info_lists_the_servers_skills_for_the_given_grants(lg_server):
    """The catalog graph: one row per skill the server loaded, enabled as the grants say,
    the tools of the enabled skills, the model and the server's home."""
    client, _ = await new_thread(lg_server)
    out = await client.runs.wait(None, "birdie_info", input={"disabled_skills": ["Shell"]})
    catalog = out["catalog"]
    loaded = load_skills([bundled_skills_dir()]).skills
    assert sorted(r["name"] for r in catalog["skills"]) == sorted(s.name for s in loaded)
    enabled = {r["name"]: r["enabled"] for r in catalog["skills"]}
    assert enabled["Shell"] is False and enabled["filesystem"] is True
    tools = {t["name"] for t in catalog["tools"]}
    assert "write_file" in tools and "run_bash" not in tools
    assert catalog["model"]["label"].startswith("offline")
    assert catalog["server"]["home"] == str(lg_server.home)
    assert catalog["broken"] == []
    assert {m["skill"] for m in catalog["mcp"]} == {s.name for s in loaded if s.mcp_server}


PROBE = """\
---
name: probe
description: A test skill of the server's own.
---

## Tools

### probe_write
description: Write a marker file.
entrypoint: bash:printf '%s' {text} > probe.txt
approval: ask
schema:
  type: object
  properties:
    text:
      type: string
  required: [text]
"""


async def test_skills_and_settings_come_from_the_servers_files(lg_server_factory, tmp_path):
    """A server with its own skills folder and settings.json: the catalog lists exactly that
    folder's skills, and its settings' approval mode (auto) runs a gated call unasked."""
    skills = tmp_path / "skills" / "probe"
    skills.mkdir(parents=True)
    (skills / "SKILL.MD").write_text(PROBE)
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"approval_mode": "auto"}))
    server = lg_server_factory(home=home, skills_dirs=[tmp_path / "skills"])
    client, tid = await new_thread(server)
    out = await client.runs.wait(None, "birdie_info", input={})
    assert [r["name"] for r in out["catalog"]["skills"]] == ["probe"]
    run = await stream(client, tid, input=human(call("probe_write", text="mine")))
    assert run.interrupts == [] and run.errors == []
    assert (server.workdir / "probe.txt").read_text() == "mine"


async def test_an_mcp_skill_enabled_for_a_thread_runs_on_the_server(lg_server_factory):
    """A thread that enables the bundled MCP demo skill: its server starts on the server side,
    its tool runs, and the catalog shows it running. `langgraph dev` checks that nothing
    blocks its event loop, and the MCP start-up passes (its file work runs in a thread)."""
    server = lg_server_factory()
    client, tid = await new_thread(server, enabled_skills=["mcp_demo"], approval_mode="auto")
    run = await stream(client, tid, input=human(call("reverse_string", text="birdie")))
    assert run.errors == []
    [result] = run.tool_results()
    assert result["status"] == "success" and "eidrib" in result["content"]
    out = await client.runs.wait(None, "birdie_info", input={"enabled_skills": ["mcp_demo"]})
    [row] = out["catalog"]["mcp"]
    assert (row["skill"], row["state"]) == ("mcp_demo", "running")
    assert "reverse_string" in row["tools"]
