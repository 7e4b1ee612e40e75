"""A session's history as plain data: for `sessions export` and for replaying into the chat."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from birdie_tui.text import content_text


def message_to_dict(msg: BaseMessage) -> dict[str, Any]:
    if isinstance(msg, HumanMessage):
        return {"role": "user", "content": content_text(msg.content)}
    if isinstance(msg, AIMessage):
        out: dict[str, Any] = {"role": "assistant", "content": content_text(msg.content)}
        if msg.tool_calls:
            out["tool_calls"] = [
                {"id": c.get("id"), "name": c["name"], "args": c["args"]} for c in msg.tool_calls
            ]
        if msg.usage_metadata:
            out["usage"] = {
                "input_tokens": msg.usage_metadata.get("input_tokens", 0),
                "output_tokens": msg.usage_metadata.get("output_tokens", 0),
            }
        return out
    if isinstance(msg, ToolMessage):
        return {
            "role": "tool",
            "tool_call_id": msg.tool_call_id,
            "name": msg.name,
            "content": content_text(msg.content),
            "error": msg.status == "error",
        }
    if isinstance(msg, SystemMessage):
        return {"role": "system", "content": content_text(msg.content)}
    return {"role": msg.type, "content": content_text(msg.content)}


def to_markdown(title: str, messages: Sequence[BaseMessage]) -> str:
    lines = [f"# {title}", ""]
    for item in map(message_to_dict, messages):
        role = item["role"]
        if role == "user":
            lines += ["## You", "", item["content"], ""]
        elif role == "assistant":
            if item["content"]:
                lines += ["## Birdie", "", item["content"], ""]
            for call in item.get("tool_calls", []):
                lines += [f"**→ {call['name']}** `{json.dumps(call['args'], ensure_ascii=False)}`", ""]
        elif role == "tool":
            label = "failed" if item["error"] else "result"
            lines += [f"**← {item['name']} {label}**", "", "```", item["content"], "```", ""]
    return "\n".join(lines).rstrip() + "\n"
