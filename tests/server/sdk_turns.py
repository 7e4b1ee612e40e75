"""Driving the served `birdie` graph through langgraph-sdk, as a client does."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from langgraph_sdk import get_client

from birdie_tui.agent.approvals import ApprovalAnswer, ApprovalRequest
from birdie_tui.agent.provenance import RECORD_KEY, CallContext

STREAM_MODES = ["messages-tuple", "updates", "custom"]


@dataclass
class Streamed:
    """What one run streamed, by kind."""

    run_id: str = ""
    updates: list[dict[str, Any]] = field(default_factory=list)
    custom: list[dict[str, Any]] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    errors: list[Any] = field(default_factory=list)

    @property
    def interrupts(self) -> list[ApprovalRequest]:
        return [ApprovalRequest.from_dict(item) for update in self.updates
                for pending in update.get("__interrupt__", ())
                for item in pending["value"]["approvals"]]

    @property
    def injected(self) -> list[dict[str, Any]]:
        return [event["injected"] for event in self.custom if "injected" in event]

    @property
    def approvals(self) -> list[dict[str, Any]]:
        return [event["approval"] for event in self.custom if "approval" in event]

    def tool_results(self) -> list[dict[str, Any]]:
        return [msg for update in self.updates for msg in
                (update.get("tools") or {}).get("messages", ())]


def human(text: str) -> dict[str, Any]:
    return {"messages": [{"type": "human", "content": text, "id": str(uuid.uuid4())}]}


def call(tool: str, **args: Any) -> str:
    """A message that makes the offline model call `tool` with `args`."""
    return f"call {tool} {json.dumps(args)}"


async def new_thread(url: str, **grants: Any) -> tuple[Any, str]:
    client = get_client(url=url)
    thread = await client.threads.create(metadata={"birdie": grants})
    return client, thread["thread_id"]


async def stream(client: Any, thread_id: str, **kwargs: Any) -> Streamed:
    out = Streamed()
    async for part in client.runs.stream(thread_id, "birdie", stream_mode=STREAM_MODES,
                                         **kwargs):
        if part.event == "metadata":
            out.run_id = part.data.get("run_id", "")
        elif part.event == "updates":
            out.updates.append(part.data)
        elif part.event == "custom":
            out.custom.append(part.data)
        elif part.event.startswith("messages"):
            chunk, meta = part.data
            if meta.get("langgraph_node") == "agent" and isinstance(chunk.get("content"), str):
                out.tokens.append(chunk["content"])
        elif part.event == "error":
            out.errors.append(part.data)
    return out


async def answer(client: Any, thread_id: str, answers: dict[str, ApprovalAnswer]) -> Streamed:
    return await stream(client, thread_id, command={
        "resume": {call_id: a.to_dict() for call_id, a in answers.items()}})


async def messages(client: Any, thread_id: str) -> list[dict[str, Any]]:
    return (await client.threads.get_state(thread_id))["values"]["messages"]


def records(history: list[dict[str, Any]]) -> list[CallContext]:
    """The provenance records on the AI messages of a thread's state (as JSON dicts)."""
    return [CallContext.from_dict(json.loads(m["response_metadata"][RECORD_KEY]))
            for m in history if m["type"] == "ai"]
