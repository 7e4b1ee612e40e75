"""Whole turns through the real engine and graph, each vendor's real SDK, and a loopback server
speaking that vendor's streaming wire format (parametrized over openai, anthropic, mistral)."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from birdie_tui.agent.engine import INTERRUPTED_MARK
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.factory import load_adapter
from tests.providers.test_coalesce import CountedChunks

from .conftest import FAST, SECRET, VENDORS, kinds, run

pytestmark = pytest.mark.integration

ECHO = ("call_A1", "echo_text", '{"text": "it works"}')


def tool_results(vendor: str, body: dict) -> list[tuple[str, str, bool]]:
    """(call id, content, is_error) of every tool result in a request body, vendor-shaped."""
    out = []
    for msg in body["messages"]:
        if vendor == "anthropic":
            for block in msg["content"] if msg["role"] == "user" else []:
                if block["type"] == "tool_result":
                    out.append((block["tool_use_id"], block["content"], block["is_error"]))
        elif msg["role"] == "tool":
            out.append((msg["tool_call_id"], msg["content"], False))
    return out


def call_ids(vendor: str, body: dict) -> list[str]:
    """Ids of the tool calls in the assistant messages of a request body."""
    ids = []
    for msg in body["messages"]:
        if msg["role"] != "assistant":
            continue
        if vendor == "anthropic":
            ids += [b["id"] for b in msg["content"] if b["type"] == "tool_use"]
        else:
            ids += [c["id"] for c in msg.get("tool_calls") or []]
    return ids


async def test_text_streams_token_by_token(vendor, server, make_engine):
    """Each vendor's text stream paced slower than the merging window arrives token by token
    with one usage."""
    reply = vendor.reply(["Hel", "lo, ", "world", "!"])
    reply.gap = 0.1  # slower than the merging window (providers/coalesce.py)
    server.script(reply)
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "hello")
    assert [e.text for e in events if e.type == "token"] == ["Hel", "lo, ", "world", "!"]
    assert kinds(events).count("usage") == 1
    usage = next(e for e in events if e.type == "usage")
    assert (usage.input_tokens, usage.output_tokens) == (12, 5)
    assert events[-1].type == "done" and events[-1].text == "Hello, world!"

    request = server.requests[0]
    assert request.path == vendor.path
    body = request.body
    if vendor.name == "anthropic":  # system prompt is its own field
        assert "Skill" in body["system"] or "skill" in body["system"]
        assert [m["role"] for m in body["messages"]] == ["user"]
        # (this SDK version sends the key as a bearer token; older ones used x-api-key)
        assert SECRET in (request.headers.get("x-api-key"), request.headers.get(
            "authorization", "").removeprefix("Bearer "))
    else:
        assert body["messages"][0]["role"] == "system"
        assert body["messages"][-1] == {"role": "user", "content": "hello"}
        assert request.headers["authorization"] == f"Bearer {SECRET}"
    if vendor.name == "openai":
        assert body["stream_options"] == {"include_usage": True}
    assert body["stream"] is True


async def test_tool_call_round_trip(vendor, server, make_engine):
    """A tool call round trip works in each vendor's wire format, leaving a valid history."""
    server.script(vendor.reply(["Let me check."], [ECHO]), vendor.reply(["It said: it works"]))
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "please echo")
    assert kinds(events).count("usage") == 2  # one per model call
    call = next(e for e in events if e.type == "tool_call")
    result = next(e for e in events if e.type == "tool_result")
    assert (call.name, call.args) == ("echo_text", {"text": "it works"})
    assert (result.content, result.error) == ("it works", False)
    assert events[-1].type == "done" and events[-1].text == "It said: it works"

    # The bound tools went out in the vendor's format, the result came back in it.
    first, second = server.requests[0].body, server.requests[1].body
    names = [t["name"] if vendor.name == "anthropic" else t["function"]["name"]
             for t in first["tools"]]
    assert "echo_text" in names
    [(result_id, content, is_error)] = tool_results(vendor.name, second)
    assert (content, is_error) == ("it works", False)
    assert call_ids(vendor.name, second) == [result_id]
    if vendor.name == "mistral":  # Mistral's ids: exactly 9 alphanumerics
        assert len(result_id) == 9 and result_id.isalnum()
    else:
        assert result_id == "call_A1"

    history = await engine.messages()
    assert [type(m) for m in history] == [HumanMessage, AIMessage, ToolMessage, AIMessage]
    assert history_problems(history) == []


async def test_a_fast_paced_reply_is_merged_per_window(vendor, server, make_engine):
    """Each vendor's stream paced faster than the window (a token every 5 ms) reaches the turn
    in a few merged tokens, the first one alone and at once, the text exact and in order."""
    words = [f"w{i} " for i in range(60)]
    reply = vendor.reply(words)
    reply.gap = 0.005
    server.script(reply)
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "paced")
    tokens = [e.text for e in events if e.type == "token"]
    assert "".join(tokens) == "".join(words)
    assert tokens[0] == "w0 " and 2 <= len(tokens) <= 30
    assert kinds(events).count("usage") == 1 and events[-1].text == "".join(words)


async def test_a_paced_reply_builds_one_message_a_chunk_sent(vendor, server, monkeypatch):
    """The adapter hands each read's text on as a plain string: through each vendor's real SDK,
    a reply paced at a token every 5 ms builds one message chunk per chunk the model sends on
    (merged text, the last chunk with usage), none per network read."""
    words = [f"w{i} " for i in range(40)]
    reply = vendor.reply(words)
    reply.gap = 0.005
    server.script(reply)
    model = load_adapter(vendor.name).from_config(vendor.config(server))
    counted = CountedChunks(monkeypatch)
    try:
        out = [chunk.message async for chunk in model._astream([HumanMessage("paced")])]
    finally:
        await model.aclose()
    assert "".join(str(m.content) for m in out) == "".join(words)
    assert out[-1].usage_metadata is not None and len(out) < len(words) // 2
    assert counted.built == len(out)


async def test_a_fast_paced_tool_call_still_parses(vendor, server, make_engine):
    """Text merged per window does not disturb a tool call streamed at the same pace: its
    arguments arrive whole and the call runs."""
    first = vendor.reply(["Let ", "me ", "check."], [ECHO])
    first.gap = 0.005
    server.script(first, vendor.reply(["done"]))
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "please echo")
    assert "".join(e.text for e in events if e.type == "token").startswith("Let me check.")
    call = next(e for e in events if e.type == "tool_call")
    assert (call.name, call.args) == ("echo_text", {"text": "it works"})
    assert next(e for e in events if e.type == "tool_result").content == "it works"


async def test_a_reply_sent_at_once_arrives_in_few_chunks(server, make_engine):
    """Events that arrive in one read are merged: the same text and usage, far fewer tokens
    (a reply sent all at once would otherwise cost one trip through the graph per token)."""
    vendor = VENDORS["openai"]
    words = [f"w{i} " for i in range(500)]
    reply = vendor.reply(words)
    reply.together = True
    server.script(reply)
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "all at once")
    tokens = [e.text for e in events if e.type == "token"]
    assert "".join(tokens) == "".join(words) and len(tokens) < 20
    assert kinds(events).count("usage") == 1 and events[-1].text == "".join(words)


async def test_parallel_tool_calls(vendor, server, make_engine):
    """Parallel tool calls each get their result; Anthropic merges them into one message."""
    calls = [("call_P1", "echo_text", '{"text": "one"}'),
             ("call_P2", "echo_text", '{"text": "two"}')]
    server.script(vendor.reply([], calls), vendor.reply(["both done"]))
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "two at once")
    results = {e.id: e.content for e in events if e.type == "tool_result"}
    started = {e.id: e.args["text"] for e in events if e.type == "tool_call"}
    assert sorted(started.values()) == ["one", "two"]
    assert {started[i]: results[i] for i in started} == {"one": "one", "two": "two"}
    second = server.requests[1].body
    assert sorted(c for _, c, _ in tool_results(vendor.name, second)) == ["one", "two"]
    if vendor.name == "anthropic":  # consecutive tool results merged into one user message
        user_turns = [m for m in second["messages"] if m["role"] == "user"]
        assert len(user_turns) == 2 and len(user_turns[1]["content"]) == 2
    assert history_problems(await engine.messages()) == []


async def test_usage_figures_with_cache(vendor, server, make_engine):
    """Cache reads are counted in usage, priced at the cached rate and saved with the session."""
    usage = {"openai": (1200, 40, 1000), "anthropic": (200, 40, 1000, 64),
             "mistral": (1200, 40)}[vendor.name]
    server.script(vendor.reply(["cached"], usage=usage))
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "hi")
    reported = next(e for e in events if e.type == "usage")
    reply = (await engine.messages())[-1]
    meta = reply.usage_metadata
    if vendor.name == "anthropic":  # input on the wire excludes cache reads and writes
        assert (reported.input_tokens, reported.output_tokens) == (1264, 40)
        assert meta["input_token_details"] == {"cache_read": 1000, "cache_creation": 64}
    else:
        assert (reported.input_tokens, reported.output_tokens) == (1200, 40)
    if vendor.name == "openai":
        assert meta["input_token_details"] == {"cache_read": 1000}
    assert engine.session.input_tokens == reported.input_tokens
    assert engine.session.output_tokens == 40
    # The ledger prices the cache reads at the cached rate, and the session file keeps both.
    from birdie_tui.agent.ledger import call_cost
    from birdie_tui.providers.catalog import price_per_million

    cached = {"openai": 1000, "anthropic": 1000, "mistral": 0}[vendor.name]
    price = price_per_million(engine.provider.vendor, engine.provider.model)
    assert price is not None and engine.ledger.calls[-1].cached == cached
    expected = call_cost(price, reported.input_tokens, 40, cached)
    ledger = engine.token_ledger()
    assert ledger.session_cached == cached and ledger.cost_usd == pytest.approx(expected)
    if cached and price[2] < price[0]:
        assert expected < call_cost(price, reported.input_tokens, 40, 0)
    saved = engine.sessions.load(engine.session.id)
    assert saved.cached_input_tokens == cached and saved.cost_usd == pytest.approx(expected)


async def test_auth_failure_is_one_line(vendor, server, make_engine):
    """A 401 is one line naming the key variable and is not retried."""
    server.script(vendor.error(401, f"Incorrect API key provided: {SECRET}"))
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "hi")
    assert kinds(events)[-1] == "error"
    message = events[-1].message
    assert message == (f"{vendor.name}: authentication failed (401) — check {vendor.key_var}")
    assert len(server.requests) == 1  # a 401 is not retried
    assert history_problems(await engine.messages()) == []


async def test_rate_limit_then_success(vendor, server, make_engine):
    """A 429 is retried and the turn then succeeds."""
    server.script(vendor.error(429, "Too many requests", **FAST), vendor.reply(["made it"]))
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "hi")
    assert events[-1].type == "done" and events[-1].text == "made it"
    assert len(server.requests) == 2


async def test_rate_limit_exhausted(vendor, server, make_engine):
    """A 429 on every try gives up after two retries with a line suggesting /retry."""
    server.script(*[vendor.error(429, "Too many requests", **FAST)] * 3)
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "hi")
    assert events[-1].type == "error"
    assert events[-1].message.startswith(f"{vendor.name}: rate limited (429)")
    assert "/retry" in events[-1].message
    assert len(server.requests) == 3  # the first try and 2 retries


async def test_server_error_after_retries(vendor, server, make_engine):
    """A 500 on every try ends in one error line and an interrupted, valid history."""
    server.script(*[vendor.error(500, "internal boom", **FAST)] * 3)
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "hi")
    assert events[-1].type == "error"
    assert events[-1].message.startswith(f"{vendor.name}: server error (500): internal boom")
    assert len(server.requests) == 3
    history = await engine.messages()
    assert history_problems(history) == []
    assert history[-1].content == INTERRUPTED_MARK


async def test_stream_cut_keeps_partial_reply(vendor, server, make_engine):
    """A stream cut mid-reply keeps the partial text, marked interrupted, and errors."""
    reply = vendor.reply(["Partial ", "answer ", "that ", "never ", "ends"])
    reply.cut_after = 4  # a few text deltas, then the socket closes
    server.script(reply)
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "tell me")
    tokens = "".join(e.text for e in events if e.type == "token")
    assert tokens and "ends" not in tokens
    assert events[-1].type == "error"
    assert "connection dropped mid-reply" in events[-1].message
    history = await engine.messages()
    assert history_problems(history) == []
    assert history[-1].content == f"{tokens.rstrip()}\n\n{INTERRUPTED_MARK}"
    assert engine.session.turns == 1


async def test_malformed_tool_arguments_become_a_tool_error(vendor, server, make_engine):
    """Malformed tool call arguments become an error tool result sent back to the model."""
    bad = ("call_B1", "echo_text", '{"text": "unterminated')  # lenient parsers would accept it
    server.script(vendor.reply([], [bad]), vendor.reply(["Sorry, fixed."]))
    engine = await make_engine(vendor.config(server))
    events = await run(engine, "echo something")
    result = next(e for e in events if e.type == "tool_result")
    assert result.error
    assert result.content.startswith("Invalid arguments for 'echo_text': arguments are not valid")
    assert '{"text": "unterminated' in result.content
    assert events[-1].type == "done" and events[-1].text == "Sorry, fixed."
    [(_, content, _)] = tool_results(vendor.name, server.requests[1].body)
    assert "Invalid arguments" in content
    assert history_problems(await engine.messages()) == []


async def test_retry_runs_the_failed_turn_again(vendor, server, make_engine):
    """Retrying reruns a failed turn once, without the interrupted mark in the request."""
    server.script(vendor.reply(["first answer"]), *[vendor.error(500, "boom", **FAST)] * 3,
                  vendor.reply(["second try worked"]))
    engine = await make_engine(vendor.config(server))
    await run(engine, "warm up")
    failed = await run(engine, "the question")
    assert failed[-1].type == "error"
    events = [e async for e in engine.run_turn(await engine.take_last_turn())]
    assert events[-1].type == "done" and events[-1].text == "second try worked"
    history = await engine.messages()
    assert [m.content for m in history] == ["warm up", "first answer", "the question",
                                            "second try worked"]
    assert engine.session.turns == 2
    last = server.requests[-1].body["messages"]
    texts = json.dumps(last)
    assert INTERRUPTED_MARK not in texts and texts.count("the question") == 1
