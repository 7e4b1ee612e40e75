"""A sub-agent's work as an ACP client sees it: the agent's call is a tool call of the turn
whose content streams the child's text; the child's own calls are tool calls of their own,
titled with the agent's name, so the editor shows them (and asks about them) as nested work.

The child's text is sent whole in each update (ACP replaces a tool call's content), so it is
sent at most every `EVERY` seconds while it streams, and once more when the child ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from acp import text_block, tool_content, update_tool_call

from birdie_tui.acp.updates import ToolCalls, Update
from birdie_tui.events import (
    AgentFinished,
    AgentStarted,
    ApprovalDecided,
    ChildEvent,
    TokenStreamed,
    ToolCallStarted,
    ToolFinished,
)

EVERY = 0.2  # seconds between two content updates of one streaming child
TEXT_LIMIT = 64 * 1024  # characters of a child's text kept for the editor (its tail)


@dataclass
class _Child:
    call_id: str
    agent: str
    text: str = ""
    sent_at: float = 0.0


@dataclass
class ChildCalls:
    """The sub-agents of one prompt's turn, by child id."""

    calls: ToolCalls
    _children: dict[str, _Child] = field(default_factory=dict)

    def updates(self, event: AgentStarted | AgentFinished | ChildEvent) -> list[Update]:
        if isinstance(event, AgentStarted):
            self._children[event.child] = _Child(event.call_id, event.name)
            title = f"Agent {event.name}"
            return [update_tool_call(event.call_id, status="in_progress", title=title,
                                     kind="think")]
        if isinstance(event, AgentFinished):
            child = self._children.pop(event.child, None)
            return [self._content(child)] if child is not None and child.text else []
        child = self._children.get(event.child)
        if child is None:
            return []
        inner = event.event
        if isinstance(inner, TokenStreamed):
            child.text = (child.text + inner.text)[-TEXT_LIMIT:]
            now = time.monotonic()
            if now - child.sent_at < EVERY:
                return []
            child.sent_at = now
            return [self._content(child)]
        if isinstance(inner, ToolCallStarted):
            start = self.calls.started(inner.id, inner.name, inner.args)
            return [start.model_copy(update={"title": f"{child.agent} › {start.title}"})]
        if isinstance(inner, ApprovalDecided):
            return [self.calls.running(inner.id)] if inner.decision == "approved" else []
        if isinstance(inner, ToolFinished):
            return [self.calls.finished(inner.id, inner.content, inner.error)]
        return []

    @staticmethod
    def _content(child: _Child) -> Update:
        return update_tool_call(child.call_id, content=[tool_content(text_block(child.text))])
