"""Hostile arguments from a model: an integer beyond 64 bits, a lone surrogate, a
call without an id, a 10 MB string, a name that is not a string. Each becomes a clean error
result or a repaired call, through the real graph and the real sqlite checkpointer; the history
stays valid, and the next request to an OpenAI-compatible server still encodes."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from birdie_tui.agent.calls import MAX_ARGS_CHARS, answerable_calls
from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig
from tests.providers.wire import frames
from tests.providers.wire.conftest import VENDORS
from tests.providers.wire.loopback import LoopbackServer, Reply

from .conftest import collect

SURROGATE = "\ud800"


class ScriptedModel(BaseChatModel):
    """Answers with its scripted replies in order, then with plain text."""

    replies: list = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[t.name for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        msg = self.replies.pop(0) if self.replies else AIMessage(content="all done")
        return ChatResult(generations=[ChatGeneration(message=msg)])


def call(name, args, call_id="c1"):
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def encodable(events) -> None:
    """Every event is one JSON line in UTF-8, without stream-json's safety net."""
    for event in events:
        json.loads(json.dumps(event.to_dict(), ensure_ascii=False).encode("utf-8"))


async def hostile_turn(engine, *replies):
    """One turn of the scripted `replies`: (events, history read back from the checkpoint)."""
    real, engine.model = engine.model, ScriptedModel(replies=list(replies))
    try:
        events = await collect(engine, "go")
    finally:
        engine.model = real
    history = await engine.messages()
    assert history_problems(history) == []
    assert [e.type for e in events if e.type == "error"] == []
    encodable(events)
    return events, history


def results(events):
    return {e.id: e for e in events if e.type == "tool_result"}


def stored_calls(history):
    return [c for m in history if isinstance(m, AIMessage) for c in m.tool_calls]


@pytest.fixture
async def server():
    srv = LoopbackServer().start()
    yield srv
    srv.stop()


async def vendor_engine(skills_dir, provider: ProviderConfig) -> Engine:
    engine = Engine(EngineOptions(skills_dirs=[skills_dir], provider=provider, tool_timeout=10))
    await engine.start()
    await engine.open_session()
    return engine


@pytest.fixture
async def openai_engine(skills_dir, server):
    """An engine whose own model is the real OpenAI adapter, talking to a loopback server."""
    engine = await vendor_engine(skills_dir, ProviderConfig(
        vendor="openai", model="gpt-4o", api_key="sk-loopback", base_url=server.url + "/v1",
        timeout=10.0))
    yield engine
    await engine.aclose()


async def second_turn_encodes(engine, server) -> dict:
    """The next turn goes to the loopback server as valid UTF-8 JSON with paired calls."""
    server.script(Reply(events=frames.openai_stream(["fine"])))
    events = await collect(engine, "and now?")
    assert events[-1].type == "done" and events[-1].text == "fine"
    body = server.requests[-1].body
    assert isinstance(body, dict)  # the server could decode it
    raw = json.dumps(body, ensure_ascii=False)
    assert SURROGATE not in raw
    raw.encode("utf-8")
    asked = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert sorted(asked) == sorted(answered) and len(set(asked)) == len(asked)
    assert history_problems(await engine.messages()) == []
    return body


async def test_integer_beyond_64_bits_is_an_error_result(engine):
    """2**70 in the arguments (even nested) is an error result naming the argument; the call
    is checkpointed with empty arguments and nothing fails to serialise."""
    events, history = await hostile_turn(engine, AIMessage(content="", tool_calls=[
        call("echo_text", {"text": "x", "n": 2**70}, "big1"),
        call("echo_text", {"text": "x", "deep": {"list": [1, -(2**70)]}}, "big2")]))
    found = results(events)
    assert found["big1"].error and "'n' is an integer beyond 64 bits" in found["big1"].content
    assert "'deep.list[1]'" in found["big2"].content
    assert [c["args"] for c in stored_calls(history)] == [{}, {}]
    assert events[-1].type == "done"


async def test_lone_surrogate_is_replaced_in_text_and_arguments(engine):
    """A lone surrogate in the reply's text and in an argument becomes U+FFFD: the tool runs,
    the history holds no surrogate, every event encodes."""
    events, history = await hostile_turn(engine, AIMessage(
        content=f"hi {SURROGATE} there",
        tool_calls=[call("echo_text", {"text": f"a{SURROGATE}b", f"k{SURROGATE}": None})]))
    assert results(events)["c1"].content == "a\ufffdb" and not results(events)["c1"].error
    reply = next(m for m in history if isinstance(m, AIMessage) and m.tool_calls)
    assert reply.content == "hi \ufffd there"
    assert reply.tool_calls[0]["args"] == {"text": "a\ufffdb", "k\ufffd": None}
    started = next(e for e in events if e.type == "tool_call")
    assert started.args == {"text": "a\ufffdb", "k\ufffd": None}


async def test_calls_without_ids_or_with_repeated_ids_get_fresh_ones(engine):
    """No id, an empty id, a duplicate, or an id of an earlier turn: each call gets a fresh
    unique id, its result pairs with it, and the history stays valid."""
    await hostile_turn(engine, AIMessage(content="", tool_calls=[
        call("echo_text", {"text": "old"}, "again")]))
    events, history = await hostile_turn(engine, AIMessage(content="", tool_calls=[
        call("echo_text", {"text": "a"}, None), call("echo_text", {"text": "b"}, ""),
        call("echo_text", {"text": "c"}, "dup"), call("echo_text", {"text": "d"}, "dup"),
        call("echo_text", {"text": "e"}, "again")]))
    ids = [c["id"] for c in stored_calls(history)]
    assert len(ids) == len(set(ids)) == 6 and all(ids) and ids[3] == "dup"
    found = results(events)
    assert [found[i].content for i in ids[1:]] == ["a", "b", "c", "d", "e"]
    started = [e.id for e in events if e.type == "tool_call"]
    assert started == ids[1:]


async def test_ten_megabyte_argument_is_a_clean_error_with_the_limit(engine):
    """A 10 MB string argument is refused with the limit in the message; the checkpoint does
    not store it (the database stays small)."""
    events, history = await hostile_turn(engine, AIMessage(content="", tool_calls=[
        call("echo_text", {"text": "x" * 10_000_000})]))
    result = results(events)["c1"]
    assert result.error and "too large" in result.content
    assert f"{MAX_ARGS_CHARS:,}" in result.content
    assert stored_calls(history)[0]["args"] == {}
    db = engine.paths.checkpoints_db(engine.user)
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
    assert size < 2_000_000


def test_a_huge_argument_is_refused_without_copying_it():
    """Refusing a 10 MB argument allocates next to nothing (memory stays bounded)."""
    reply = AIMessage(content="", tool_calls=[call("echo_text", {"text": "y" * 10_000_000})])
    tracemalloc.start()
    try:
        fixed = answerable_calls(reply)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fixed.tool_calls[0]["args"] == {} and peak < 200_000


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic warns about the bad types
async def test_name_not_a_string_and_args_not_an_object_are_error_results(engine):
    """A tool name that is not a string, an unknown odd name, and arguments that are not an
    object are each answered with an error; the stored calls are well formed."""
    reply = AIMessage(content="", tool_calls=[call("echo_text", {}, "n1"),
                                             call("echo_text", {}, "n2"),
                                             call("echo_text", {}, "n3")])
    reply.tool_calls[0]["name"] = 42
    reply.tool_calls[1]["args"] = [1, 2]
    reply.tool_calls[2]["name"] = "rm -rf /"
    events, history = await hostile_turn(engine, reply)
    found = results(events)
    assert "tool name must be a string, not a number" in found["n1"].content
    assert "arguments must be a JSON object, not an array" in found["n2"].content
    assert "there is no tool named 'rm -rf /'" in found["n3"].content
    assert all(r.error for r in found.values())
    assert [(c["name"], c["args"]) for c in stored_calls(history)] == [
        ("unnamed_tool", {}), ("echo_text", {}), ("rm_-rf__", {})]


HOSTILE = {
    "big integer": lambda: [call("echo_text", {"text": "x", "n": 2**70})],
    "lone surrogate": lambda: [call("echo_text", {"text": f"a{SURROGATE}b"})],
    "no id": lambda: [call("echo_text", {"text": "a"}, None),
                      call("echo_text", {"text": "b"}, None)],
    "ten megabytes": lambda: [call("echo_text", {"text": "z" * 10_000_000})],
    "not an object": lambda: [call("echo_text", {}, "x1")],
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_the_next_request_to_an_openai_server_encodes(openai_engine, server, case):
    """After each hostile reply, a second turn reaches an OpenAI-compatible server as valid
    UTF-8 JSON, every call answered, the history valid."""
    reply = AIMessage(content=f"text {SURROGATE}", tool_calls=HOSTILE[case]())
    if case == "not an object":
        reply.tool_calls[0]["args"] = "text"
    await hostile_turn(openai_engine, reply)
    body = await second_turn_encodes(openai_engine, server)
    assistant = next(m for m in body["messages"] if m.get("tool_calls"))
    assert assistant["content"] == "text \ufffd"
    for sent in assistant["tool_calls"]:
        assert len(sent["function"]["arguments"]) < 1000
        json.loads(sent["function"]["arguments"])


async def test_hostile_frames_from_an_openai_server(openai_engine, server):
    """An OpenAI-compatible server sending a lone surrogate, a call without an id, a numeric
    tool name and a repeated id: the turn completes with repaired calls or error results and
    the next request encodes."""
    server.script(Reply(events=frames.openai_stream(
        [f"look {SURROGATE}"],
        [(None, "echo_text", '{"text": "a\\ud800b"}'), ("twice", 42, "{}"),
         ("twice", "echo_text", '{"text": "c"}')])),
        Reply(events=frames.openai_stream(["ok"])))
    events = await collect(openai_engine, "go")
    encodable(events)
    assert [e.type for e in events if e.type == "error"] == []
    found = {e.name: e for e in events if e.type == "tool_result"}
    contents = sorted(e.content for e in events if e.type == "tool_result")
    assert "a\ufffdb" in contents and "c" in contents
    assert "tool name must be a string" in found["unnamed_tool"].content
    assert "".join(e.text for e in events if e.type == "token").startswith("look \ufffd")
    await second_turn_encodes(openai_engine, server)


def test_a_tool_result_with_a_lone_surrogate_is_stored_replaced():
    """A tool's own output with a lone surrogate (an MCP server may send one) is stored with
    U+FFFD, so it never breaks the next request."""
    from birdie_tui.agent.calls import safe_result

    result = safe_result(ToolMessage(content=f"out {SURROGATE}", tool_call_id="t1"))
    assert result.content == "out \ufffd"
    same = ToolMessage(content="plain", tool_call_id="t2")
    assert safe_result(same) is same


@pytest.mark.parametrize("name", sorted(VENDORS))
async def test_every_vendor_gets_a_next_request_that_encodes(skills_dir, server, name):
    """After a reply with a lone surrogate, a call without an id and one with 2**70, the next
    request to each vendor's loopback server (its real SDK) is valid JSON without a surrogate."""
    vendor = VENDORS[name]
    engine = await vendor_engine(skills_dir, vendor.config(server))
    try:
        await hostile_turn(engine, AIMessage(content=f"hm {SURROGATE}", tool_calls=[
            call("echo_text", {"text": f"a{SURROGATE}"}, None),
            call("echo_text", {"text": "b", "n": 2**70}, "")]))
        server.script(vendor.reply(["fine"]))
        events = await collect(engine, "and now?")
        assert events[-1].type == "done" and events[-1].text == "fine"
        body = server.requests[-1].body
        assert isinstance(body, dict) and SURROGATE not in json.dumps(body, ensure_ascii=False)
        assert history_problems(await engine.messages()) == []
    finally:
        await engine.aclose()


def test_scrub_surrogates_replaces_lone_ones_and_joins_split_pairs():
    """A lone surrogate becomes U+FFFD, a pair split into two code points becomes its
    character again, and clean text comes back as the same object."""
    from birdie_tui.text import scrub_surrogates

    assert scrub_surrogates(f"a{SURROGATE}b\udc00") == "a\ufffdb\ufffd"
    assert scrub_surrogates("\ud83d\ude00!") == "\U0001f600!"
    clean = "héllo"
    assert scrub_surrogates(clean) is clean
