"""Turning LangGraph's `astream(stream_mode=["messages","updates","custom"])` output into typed
turn events (docs/contracts.md, stream-json events). Pure functions over (mode, data) pairs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

from birdie_tui.events import (
    AgentFinished,
    AgentStarted,
    ApprovalDecided,
    ChildEvent,
    SkillsInjected,
    TokenStreamed,
    ToolCallStarted,
    ToolFinished,
    TurnEvent,
    UsageReported,
)
from birdie_tui.agent.ledger import usage_of
from birdie_tui.text import content_text, scrub_surrogates


def translate(mode: str, data: Any) -> Iterator[TurnEvent]:
    if mode == "messages":
        chunk, meta = data
        # `messages` also carries whole ToolMessages written by nodes: tokens come from chunks only.
        if isinstance(chunk, AIMessageChunk) and meta.get("langgraph_node") == "agent":
            text = content_text(chunk.content)
            if text:  # a lone surrogate from the wire would break every encoder
                yield TokenStreamed(scrub_surrogates(text))
    elif mode == "custom" and isinstance(data, dict):
        if isinstance(data.get("injected"), SkillsInjected):
            yield data["injected"]
        if isinstance(data.get("approval"), dict):
            yield ApprovalDecided(**data["approval"])
        # Calls a model ran itself mid-reply (an ACP agent over the MCP bridge): shown as the
        # turn's tool events, kept in no message of the history.
        if isinstance(data.get("tool_call"), dict):
            yield ToolCallStarted(**data["tool_call"])
        if isinstance(data.get("tool_result"), dict):
            yield ToolFinished(**data["tool_result"])
        # A sub-agent's start, end and events (agent.subagents), as the parent's turn events.
        if isinstance(data.get("child"), (AgentStarted, AgentFinished, ChildEvent)):
            yield data["child"]
    elif mode == "updates" and isinstance(data, dict):
        for node, update in data.items():
            messages = (update or {}).get("messages", []) if isinstance(update, dict) else []
            if node == "agent":
                yield from _agent_update(messages)
            elif node == "tools":
                for msg in messages:
                    if isinstance(msg, ToolMessage):
                        yield ToolFinished(
                            id=msg.tool_call_id,
                            name=msg.name or "",
                            content=content_text(msg.content),
                            error=msg.status == "error",
                        )


def _agent_update(messages: list[Any]) -> Iterator[TurnEvent]:
    reply = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if reply is None:
        return
    spent_in, spent_out, cached = usage_of(reply)
    yield UsageReported(input_tokens=spent_in, output_tokens=spent_out,
                        cached_input_tokens=cached)
    for call in reply.tool_calls:
        yield ToolCallStarted(id=call.get("id") or "", name=call["name"], args=dict(call["args"]))


def agent_reply(mode: str, data: Any) -> AIMessage | None:
    """The AI message an update of the agent node carries (None for any other stream item):
    the engine takes a turn's answer from here instead of reading the history back."""
    if mode != "updates" or not isinstance(data, dict):
        return None
    update = data.get("agent")
    messages = update.get("messages", []) if isinstance(update, dict) else []
    return next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)


def final_reply(messages: list[Any]) -> AIMessage | None:
    """The answer of a finished turn: the last AI message without tool calls."""
    for msg in reversed(messages):
        if isinstance(msg, AIMessage):
            return msg if not msg.tool_calls else None
    return None
