"""The conversation as the one text block an ACP agent is prompted with (Birdie 0.15.1's shape:
the system prompt, then `Human:` / `Assistant:` turns and `[name result: ...]` lines)."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from birdie_tui.text import content_text


def conversation_text(messages: list[BaseMessage]) -> str:
    system: list[str] = []
    dialogue: list[str] = []
    for msg in messages:
        text = content_text(msg.content).strip()
        if isinstance(msg, SystemMessage):
            system.append(text)
        elif isinstance(msg, HumanMessage):
            dialogue.append(f"Human: {text}")
        elif isinstance(msg, AIMessage):
            calls = " ".join(f"[called {call['name']}({json.dumps(call['args'], default=str)})]"
                             for call in msg.tool_calls)
            said = " ".join(part for part in (text, calls) if part)
            if said:
                dialogue.append(f"Assistant: {said}")
        elif isinstance(msg, ToolMessage):
            dialogue.append(f"[{msg.name or 'tool'} result: {text}]")
        elif text:
            dialogue.append(text)
    return "\n\n".join(part for part in (*system, *dialogue) if part)


__all__ = ["conversation_text"]
