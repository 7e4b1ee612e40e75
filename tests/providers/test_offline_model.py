"""The offline chat model: call syntax, tool summaries, echo answers, streaming, usage, pacing."""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from birdie_tui.providers.offline import OfflineChatModel, split_tokens
from birdie_tui.providers.tokens import estimate_message_tokens, estimate_tokens


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@tool
def clock() -> str:
    """Tell the time."""
    return "12:00"


SYSTEM = SystemMessage(
    "You are Birdie.\n\n--- weather skill context ---\nUse metric.\n\n"
    "--- notes skill (loaded) ---\nNotes body\n--- not a marker ---"
)


@pytest.fixture
def model() -> OfflineChatModel:
    return OfflineChatModel(tokens_per_second=None)


def join(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def test_identity(model: OfflineChatModel) -> None:
    """The offline model reports birdie-offline as its type and model name."""
    assert model._llm_type == "birdie-offline"
    assert model.model_name == "birdie-offline"


def test_tps_default_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """BIRDIE_OFFLINE_TPS sets the pace when it is a number; otherwise there is none."""
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "50")
    assert OfflineChatModel().tokens_per_second == 50.0
    monkeypatch.setenv("BIRDIE_OFFLINE_TPS", "fast")
    assert OfflineChatModel().tokens_per_second is None
    monkeypatch.delenv("BIRDIE_OFFLINE_TPS")
    assert OfflineChatModel().tokens_per_second is None


def test_call_with_args(model: OfflineChatModel) -> None:
    """A message of the form call <tool> {json} makes one tool call with those args and an id."""
    msg = model.bind_tools([echo, clock]).invoke([SYSTEM, HumanMessage('call echo {"text": "hi there"}')])
    assert msg.content == ""
    assert len(msg.tool_calls) == 1
    call = msg.tool_calls[0]
    assert (call["name"], call["args"]) == ("echo", {"text": "hi there"})
    assert re.fullmatch(r"call_[0-9a-f]{12}", call["id"])
    assert msg.response_metadata["finish_reason"] == "tool_calls"


def test_call_without_args_and_multiline_json(model: OfflineChatModel) -> None:
    """A call message works without arguments and with multi-line JSON."""
    bound = model.bind_tools([echo, clock])
    assert bound.invoke([HumanMessage("  call clock  ")]).tool_calls[0]["args"] == {}
    msg = bound.invoke([HumanMessage('call echo {\n  "text": "a"\n}')])
    assert msg.tool_calls[0]["args"] == {"text": "a"}


def test_call_id_is_deterministic_and_depends_on_message(model: OfflineChatModel) -> None:
    """Tool call ids repeat for the same history and differ when the history differs."""
    bound = model.bind_tools([clock])
    first = bound.invoke([HumanMessage("call clock")]).tool_calls[0]["id"]
    assert bound.invoke([HumanMessage("call clock")]).tool_calls[0]["id"] == first
    later = bound.invoke([HumanMessage("hi"), AIMessage("hello"), HumanMessage("call clock")])
    assert later.tool_calls[0]["id"] != first


def test_call_unbound_tool(model: OfflineChatModel) -> None:
    """Calling an unbound tool makes no call and names the tools that are bound."""
    msg = model.bind_tools([echo, clock]).invoke([HumanMessage("call rm_rf {}")])
    assert not msg.tool_calls
    assert "`rm_rf` is not available" in msg.content
    assert "`echo`, `clock`" in msg.content
    unbound = model.invoke([HumanMessage("call echo")])
    assert not unbound.tool_calls and "Bound tools: none" in unbound.content


@pytest.mark.parametrize("args", ['{"text": ', "[1, 2]", '"just a string"', "{'text': 1}"])
def test_call_with_invalid_json(model: OfflineChatModel, args: str) -> None:
    """Arguments that are not a JSON object make no call and explain the problem."""
    msg = model.bind_tools([echo]).invoke([HumanMessage(f"call echo {args}")])
    assert not msg.tool_calls
    assert "could not read the arguments for `echo`" in msg.content
    assert "JSON object" in msg.content
    assert msg.response_metadata["finish_reason"] == "stop"


def test_summary_after_tool_results(model: OfflineChatModel) -> None:
    """After tool results the reply summarises this turn's results and failures only."""
    call_msg = AIMessage(
        "",
        tool_calls=[
            {"name": "echo", "args": {"text": "hello"}, "id": "c1"},
            {"name": "clock", "args": {}, "id": "c2"},
        ],
    )
    old = AIMessage("", tool_calls=[{"name": "echo", "args": {}, "id": "c0"}])
    messages = [
        SYSTEM,
        HumanMessage("call echo"),
        old,
        ToolMessage("OLD RESULT", tool_call_id="c0", name="echo"),
        HumanMessage("again"),
        call_msg,
        ToolMessage("hello", tool_call_id="c1", name="echo"),
        ToolMessage("Error: clock broke", tool_call_id="c2", status="error"),
    ]
    msg = model.bind_tools([echo, clock]).invoke(messages)
    text = msg.content
    assert text.startswith("**Tool results**")
    assert "- `echo` → returned:" in text and "  ```\n  hello\n  ```" in text
    assert "- `clock` → failed:" in text and "Error: clock broke" in text
    assert "OLD RESULT" not in text
    assert "2 tool calls finished, 1 failed." in text
    assert not msg.tool_calls


def summary_of(model: OfflineChatModel, content: str) -> str:
    call_msg = AIMessage("", tool_calls=[{"name": "echo", "args": {}, "id": "c1"}])
    return model.invoke([HumanMessage("call echo"), call_msg, ToolMessage(content, tool_call_id="c1")]).content


def test_summary_quotes_a_short_excerpt_not_the_whole_output(model: OfflineChatModel) -> None:
    """The summary quotes the first lines of a long output and says how many were left out."""
    # The transcript already shows the full tool output; the reply must not print it again.
    output = "\n".join(f"line {i:03d}" for i in range(200))
    text = summary_of(model, output)
    assert "  line 000\n" in text and "  line 005\n" in text and "line 006" not in text
    assert "_… (194 more lines)_" in text
    assert len(text) < 500 < len(output)
    assert summary_of(model, output) == text  # deterministic


def test_summary_cuts_one_long_line_and_fences_backticks(model: OfflineChatModel) -> None:
    """The summary cuts a very long line and fences output containing backticks safely."""
    text = summary_of(model, "x" * 5000 + "```")
    assert "x" * 300 in text and "x" * 301 not in text
    assert "_… (4,703 more characters)_" in text
    assert "````" in summary_of(model, "a ``` b")


def test_summary_keeps_short_outputs_whole_without_a_note(model: OfflineChatModel) -> None:
    """A short tool output is quoted whole, with no note of omitted lines."""
    output = "\n".join(["total 3", "a.txt", "b.txt"])
    text = summary_of(model, output)
    assert "  ```\n  total 3\n  a.txt\n  b.txt\n  ```" in text and "more line" not in text


def test_summary_stops_at_the_character_budget(model: OfflineChatModel) -> None:
    """The summary stops quoting lines once its character budget is spent."""
    output = "\n".join(["y" * 120] * 4)  # 4 lines but only two fit into 300 characters
    text = summary_of(model, output)
    assert text.count("y" * 120) == 2 and "_… (2 more lines)_" in text


def test_plain_answer_lists_skills_and_tools(model: OfflineChatModel) -> None:
    """A plain answer quotes the message, lists injected skills and bound tools, counts tokens."""
    msg = model.bind_tools([echo, clock]).invoke([SYSTEM, HumanMessage("What's the weather?\nIn Paris")])
    text = msg.content
    assert "> What's the weather?\n> In Paris" in text
    assert "**Skills injected this turn:** `weather`, `notes`" in text
    assert "not a" not in text
    assert "**Tools I could call:** `echo`, `clock`" in text
    assert 'Try `call echo {"text": ...}` to run a tool.' in text
    assert msg.usage_metadata is not None and msg.usage_metadata["output_tokens"] == estimate_tokens(text)


def test_plain_answer_without_skills_or_tools(model: OfflineChatModel) -> None:
    """Without skills or tools the plain answer says none and shows the call syntax."""
    text = model.invoke([HumanMessage("hello")]).content
    assert "**Skills injected this turn:** none" in text
    assert "**Tools I could call:** none" in text
    assert "call <tool>" in text


def test_list_content_blocks_are_read(model: OfflineChatModel) -> None:
    """A message given as content blocks is read like plain text."""
    msg = model.bind_tools([clock]).invoke([HumanMessage([{"type": "text", "text": "call clock"}])])
    assert msg.tool_calls[0]["name"] == "clock"


def test_deterministic(model: OfflineChatModel) -> None:
    """The same input always gives the same reply and usage."""
    messages = [SYSTEM, HumanMessage("same input")]
    bound = model.bind_tools([echo])
    first, second = bound.invoke(messages), bound.invoke(messages)
    assert first.content == second.content
    assert first.usage_metadata == second.usage_metadata


async def test_astream_token_by_token_with_usage_once(model: OfflineChatModel) -> None:
    """Async streaming yields the reply token by token, with usage only on the last chunk."""
    bound = model.bind_tools([echo])
    messages = [SYSTEM, HumanMessage("stream me please")]
    chunks = [c async for c in bound.astream(messages)]
    texts = [c.content for c in chunks if c.content]
    final = bound.invoke(messages)
    assert len(texts) > 10
    assert "".join(texts) == final.content
    assert texts == split_tokens(final.content)
    with_usage = [c for c in chunks if c.usage_metadata]
    assert len(with_usage) == 1 and with_usage[0] is chunks[-1]
    assert chunks[-1].response_metadata["finish_reason"] == "stop"
    total = join(chunks)
    assert total.usage_metadata == final.usage_metadata
    assert total.response_metadata["model_name"] == "birdie-offline"


def test_sync_stream_tool_call_single_chunk(model: OfflineChatModel) -> None:
    """Sync streaming of a tool call yields one chunk carrying the call and usage."""
    bound = model.bind_tools([echo])
    chunks = list(bound.stream([HumanMessage('call echo {"text": "ü"}')]))
    assert len(chunks) == 1
    chunk = chunks[0]
    assert chunk.tool_call_chunks[0]["args"] == '{"text": "ü"}'
    assert chunk.tool_calls[0]["args"] == {"text": "ü"}
    assert chunk.usage_metadata is not None
    assert chunk.response_metadata["finish_reason"] == "tool_calls"


def test_usage_counts_messages_and_tool_schemas(model: OfflineChatModel) -> None:
    """Input usage counts the messages, plus the tool schemas when tools are bound."""
    messages = [SYSTEM, HumanMessage("hello")]
    bare = model.invoke(messages).usage_metadata
    bound = model.bind_tools([echo]).invoke(messages).usage_metadata
    assert bare is not None and bound is not None
    assert bare["input_tokens"] == estimate_message_tokens(messages)
    assert bound["input_tokens"] > bare["input_tokens"]
    assert bound["total_tokens"] == bound["input_tokens"] + bound["output_tokens"]


async def test_tps_pacing_async_and_sync() -> None:
    """Pacing by tokens per second changes no text in async, sync or invoke calls."""
    paced = OfflineChatModel(tokens_per_second=200).bind_tools([echo])
    free = OfflineChatModel(tokens_per_second=None).bind_tools([echo])
    messages = [HumanMessage("hi")]
    chunks = [c async for c in paced.astream(messages)]
    expected = free.invoke(messages).content
    assert "".join(c.content for c in chunks) == expected
    assert "".join(c.content for c in paced.stream(messages)) == expected
    assert (await paced.ainvoke(messages)).content == expected


def test_split_tokens_roundtrip() -> None:
    """Text splits into whitespace-led tokens that join back to the same text."""
    text = "  Hello,  world!\n\n- item `x`\n"
    tokens = split_tokens(text)
    assert "".join(tokens) == text
    assert tokens[:2] == ["  Hello,", "  world!"]
    assert split_tokens("") == []


def test_prose_starting_with_call_is_not_a_tool_call(model: OfflineChatModel) -> None:
    """Prose that merely starts with the word call gets a plain answer, not a tool call."""
    msg = model.bind_tools([echo]).invoke([HumanMessage("call my mom tomorrow")])
    assert not msg.tool_calls
    assert "> call my mom tomorrow" in msg.content


def test_a_denied_call_is_summarised_as_denied_not_finished_and_failed(
        model: OfflineChatModel) -> None:
    """One denied call reads "1 tool call denied", not "1 tool call finished, 1 failed";
    a call a rule or limit stopped reads "not run", and the counts agree in number."""
    call_msg = AIMessage("", tool_calls=[{"name": "echo", "args": {}, "id": "c1"}])
    denied = ToolMessage("The user denied this tool call.", tool_call_id="c1", name="echo",
                         status="error")
    text = model.bind_tools([echo]).invoke([SYSTEM, HumanMessage("x"), call_msg, denied]).content
    assert "- `echo` → denied:" in text and "1 tool call denied." in text
    assert "finished" not in text and "failed" not in text
    calls = AIMessage("", tool_calls=[{"name": "echo", "args": {}, "id": f"c{i}"}
                                      for i in range(3)])
    mixed = [ToolMessage("hi", tool_call_id="c0", name="echo"),
             ToolMessage("The user denied this tool call.", tool_call_id="c1", status="error"),
             ToolMessage("Not run: read-only mode.", tool_call_id="c2", status="error")]
    text = model.bind_tools([echo]).invoke([SYSTEM, HumanMessage("x"), calls, *mixed]).content
    assert "1 tool call finished, 1 denied, 1 not run." in text
