"""Finding text in the conversation (ctrl+f): over the texts the chat's entries keep, never by
rendering them, so 300 entries of long replies and tool output are searched per keystroke.

Plain text, case-insensitive. An entry's text is what it holds in full (a user message past its
preview, a tool block's arguments and whole result, a sub-agent's inputs, text, nested calls
and answer), lowered once and kept until the entry's text changes (a streaming reply, a tool
that finishes). Entries the log pruned (above "earlier messages hidden") are not searched.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass

from textual.widget import Widget
from textual.widgets import Markdown

from birdie_tui.tui.widgets.chat.agent_block import AgentBlock
from birdie_tui.tui.widgets.chat.assistant_message import AssistantMessage
from birdie_tui.tui.widgets.chat.notice import ErrorBlock, Notice
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock
from birdie_tui.tui.widgets.chat.user_message import UserMessage


def _args(args: dict[str, object]) -> str:
    try:
        return json.dumps(args, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(args)


def _parts(entry: Widget) -> tuple[object, ...]:
    """What an entry's searchable text is made of, as objects whose identity changes when the
    text does (strings are immutable; a reply keeps one string until more arrives)."""
    if isinstance(entry, UserMessage | Notice):
        return (entry.text,)
    if isinstance(entry, AssistantMessage):
        return (entry.text,)
    if isinstance(entry, ToolBlock):
        return (entry.name, entry.args, entry.content)
    if isinstance(entry, AgentBlock):
        return (entry.agent, entry.text, entry.answer, entry.error_text,
                *[part for block in entry.tool_blocks for part in _parts(block)])
    if isinstance(entry, ErrorBlock):
        return (entry.message,)
    if isinstance(entry, Markdown):  # /help and other Markdown notices
        return (entry.source,)
    return ()


def _joined(parts: tuple[object, ...]) -> str:
    return "\n".join(_args(part) if isinstance(part, dict) else str(part)
                     for part in parts if part is not None)


class TextCache:
    """Each entry's lowered text, built again only when its parts change."""

    def __init__(self) -> None:
        self._kept: weakref.WeakKeyDictionary[Widget, tuple[tuple[object, ...], str]] = (
            weakref.WeakKeyDictionary())

    def lowered(self, entry: Widget) -> str:
        parts = _parts(entry)
        kept = self._kept.get(entry)
        if kept is not None and len(kept[0]) == len(parts) and all(
                a is b for a, b in zip(kept[0], parts)):
            return kept[1]
        text = _joined(parts).lower()
        self._kept[entry] = (parts, text)
        return text


@dataclass(frozen=True)
class Hits:
    """How often the query occurs in each entry that has it, in the log's order."""

    entries: list[Widget]
    counts: list[int]

    @property
    def total(self) -> int:
        return sum(self.counts)

    def locate(self, number: int) -> tuple[Widget, int]:
        """The entry of the `number`-th match (0-based, over all entries) and which of that
        entry's matches it is."""
        for entry, count in zip(self.entries, self.counts):
            if number < count:
                return entry, number
            number -= count
        raise IndexError(number)

    def first_of(self, entry: Widget) -> int | None:
        """The overall number of `entry`'s first match (None: it has none)."""
        number = 0
        for other, count in zip(self.entries, self.counts):
            if other is entry:
                return number
            number += count
        return None


def find(entries: list[Widget], query: str, cache: TextCache) -> Hits:
    """Where `query` occurs (case-insensitive, as typed: no pattern syntax)."""
    needle = query.lower()
    found: list[Widget] = []
    counts: list[int] = []
    if not needle:
        return Hits(found, counts)
    for entry in entries:
        count = cache.lowered(entry).count(needle)
        if count:
            found.append(entry)
            counts.append(count)
    return Hits(found, counts)


def offset_of(entry: Widget, query: str, which: int, cache: TextCache) -> tuple[int, int]:
    """The `which`-th match's character offset in the entry's text, and the text's length."""
    text, needle = cache.lowered(entry), query.lower()
    at = -len(needle)  # as `str.count` counts: matches do not overlap
    for _ in range(which + 1):
        at = text.find(needle, at + len(needle))
        if at < 0:
            return 0, len(text)
    return at, len(text)
