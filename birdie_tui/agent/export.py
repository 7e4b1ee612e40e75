"""A session written out: `birdie-tui sessions export` and `/export`.

JSON keeps the public shape of `sessions export` (`session`, `messages`) and adds, per user
turn, the tool calls with their results and the provenance record of every model call
(`turns`), plus the rolling compaction summary (`summary`, "" when there is none) and what
rewinds dropped from the history (`rewound`: each rewind's messages, `agent/rewind.py`).

Markdown is the transcript with a heading per turn and, after the user's message, a compact
"Context" block: what each model call of the turn was given (segments, evictions, skills not
loaded). Tool results are shown once, capped at `RESULT_CHARS`.

A call's record is kept on the AI message the call produced, so it belongs to the turn that
message is in (a turn taken back by `/retry` takes its records with it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from birdie_tui.agent.provenance import CallContext, Segment
from birdie_tui.agent.transcript import message_to_dict
from birdie_tui.secrets import scrub, scrub_data
from birdie_tui.store.session_meta import session_row
from birdie_tui.text import counted

FORMATS = ("markdown", "json")
RESULT_CHARS = 2_000  # of a tool result shown in Markdown
NO_RECORD = "_(no prompt record: session from before this version)_"


@dataclass
class Turn:
    """One user message and everything that answered it."""

    number: int
    items: list[dict[str, Any]] = field(default_factory=list)  # message_to_dict, in order
    message_ids: set[str] = field(default_factory=set)
    calls: list[CallContext] = field(default_factory=list)

    @property
    def user(self) -> str:
        return self.items[0]["content"] if self.items else ""

    @property
    def reply(self) -> str:
        texts = [i["content"] for i in self.items if i["role"] == "assistant" and i["content"]]
        return texts[-1] if texts else ""

    def tool_calls(self) -> list[dict[str, Any]]:
        results = {i["tool_call_id"]: i for i in self.items if i["role"] == "tool"}
        out = []
        for item in self.items:
            for call in item.get("tool_calls", []) if item["role"] == "assistant" else ():
                done = results.get(call["id"])
                out.append({"id": call["id"], "name": call["name"], "args": call["args"],
                            "result": done["content"] if done else None,
                            "error": bool(done and done["error"])})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.number, "user": self.user, "reply": self.reply,
                "tool_calls": self.tool_calls(), "calls": [c.to_dict() for c in self.calls]}


def export_session(meta: Any, messages: Sequence[BaseMessage], contexts: Sequence[CallContext],
                   fmt: str = "markdown", *, summary: str = "",
                   rewound: dict[str, Any] | None = None) -> str:
    """The session as Markdown or JSON (`fmt`); ValueError for another format. Keys, header
    values and URL credentials are masked (a session from before scrubbing may hold them)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: markdown or json")
    items = [message_to_dict(m) for m in messages]
    preamble, turns = split_turns(messages, items, contexts)
    if fmt == "json":
        return json.dumps(scrub_data({"session": session_row(meta), "messages": items,
                                      "turns": [t.to_dict() for t in turns],
                                      "summary": summary,
                                      "rewound": rewound_records(rewound)}),
                          indent=2, ensure_ascii=False)
    text = to_markdown(f"{meta.id} — {meta.title or 'untitled'}", preamble, turns, summary)
    text += rewound_markdown(rewound)
    # A raw CR (a CRLF paste, a progress bar) would make a viewer overwrite the line it ends.
    return scrub(text.replace("\r\n", "\n").replace("\r", "\n"))


# ---------------------------------------------------------------------- rewound
def rewound_records(rewound: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Each kept rewind: `at` (the number its first message had), `when`, `messages`,
    `not_kept` (messages beyond the cap), its tokens; oldest first."""
    return [r for r in (rewound or {}).get("records") or () if isinstance(r, dict)]


def rewound_markdown(rewound: dict[str, Any] | None) -> str:
    """The messages rewinds dropped, after the history: never silently lost."""
    records = rewound_records(rewound)
    older = int((rewound or {}).get("older") or 0)
    if not records and not older:
        return ""
    lines = ["", "## Rewound", "",
             "_Dropped from the history by a rewind (the model no longer sees them)._", ""]
    if older:
        lines += [f"_{counted(older, 'earlier rewind')}: messages not kept._", ""]
    for record in records:
        when = str(record.get("when") or "")[:16].replace("T", " ")
        lines += [f"### Rewound at message {record.get('at')} · {when}", ""]
        for item in record.get("messages") or ():
            if isinstance(item, dict) and "role" in item:
                block = message_lines(item)
                if block and block[0].startswith("### "):  # under this rewind's heading
                    block[0] = "#" + block[0]
                lines += block
        if record.get("not_kept"):
            lines += [f"_({counted(int(record['not_kept']), 'more message')} not kept)_", ""]
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------------- turns
def split_turns(messages: Sequence[BaseMessage], items: list[dict[str, Any]],
                contexts: Sequence[CallContext]) -> tuple[list[dict[str, Any]], list[Turn]]:
    """(messages before the first user message, the turns with their calls' records)."""
    preamble: list[dict[str, Any]] = []
    turns: list[Turn] = []
    for msg, item in zip(messages, items, strict=True):
        if msg.type == "human":
            turns.append(Turn(len(turns) + 1))
        target = turns[-1] if turns else None
        if target is None:
            preamble.append(item)
            continue
        target.items.append(item)
        if msg.id:
            target.message_ids.add(str(msg.id))
    for turn in turns:
        turn.calls = [r for r in contexts if r.message_id in turn.message_ids]
    return preamble, turns


# ---------------------------------------------------------------------- Markdown
def to_markdown(title: str, preamble: list[dict[str, Any]], turns: list[Turn],
                summary: str = "") -> str:
    lines = [f"# {title}", ""]
    missing = [t.number for t in turns if not t.calls]
    if missing and len(missing) == len(turns):
        lines += [NO_RECORD, ""]
    elif missing:
        lines += [f"_(no prompt record for {'turn' if len(missing) == 1 else 'turns'} "
                  f"{', '.join(map(str, missing))}: they ran "
                  "before this version)_", ""]
    if summary:
        lines += ["## Compaction summary", "", summary, ""]
    for item in preamble:
        lines += message_lines(item)
    for turn in turns:
        lines += [f"## Turn {turn.number}", ""]
        lines += message_lines(turn.items[0])
        lines += context_lines(turn.calls)
        for item in turn.items[1:]:
            lines += message_lines(item)
    if turns and turns[-1].items[-1]["role"] != "assistant":
        # No reply after it: the process died mid-turn (kill -9), or runs it right now.
        lines += ["### Birdie", "", "*[interrupted]* — no reply was saved; /retry runs the "
                  "turn again", ""]
    return "\n".join(lines).rstrip() + "\n"


def message_lines(item: dict[str, Any]) -> list[str]:
    role = item["role"]
    if role == "user":
        return ["### You", "", item["content"], ""]
    if role == "assistant":
        lines = ["### Birdie", "", item["content"], ""] if item["content"] else []
        for call in item.get("tool_calls", []):
            args = json.dumps(call["args"], ensure_ascii=False)
            lines += [f"**→ {call['name']}** `{args}`", ""]
        return lines
    if role == "tool":
        label = "failed" if item["error"] else "result"
        text, note = capped(item["content"])
        return [f"**← {item['name']} {label}**", "", fence(text), text, fence(text), "",
                *([note, ""] if note else [])]
    return [f"### {role}", "", item["content"], ""]


def capped(text: str) -> tuple[str, str]:
    """A tool result cut at `RESULT_CHARS`, and the note saying so ("" when whole)."""
    if len(text) <= RESULT_CHARS:
        return text, ""
    return text[:RESULT_CHARS], (f"_(result cut: first {RESULT_CHARS:,} of {len(text):,} "
                                 "characters shown; `--format json` has all of it)_")


def fence(text: str) -> str:
    """A code fence longer than any backtick run in `text`."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def context_lines(calls: list[CallContext]) -> list[str]:
    """The turn's "Context" block: each call's segments (a later call lists only what differs
    from the call before it), evictions and skills not loaded."""
    if not calls:
        return []
    lines = ["#### Context", ""]
    previous: CallContext | None = None
    for record in calls:
        dropped = (f" · {counted(record.history_dropped, 'older message')} not sent"
                   if record.history_dropped else "")
        lines.append(f"- **Call {record.call}** · ≈{record.tokens:,} tokens{dropped}")
        same = {s.key: s for s in previous.segments} if previous else {}
        kept = [s for s in record.segments if same.get(s.key) == s]
        if kept:
            lines.append(f"  - same as call {previous.call}: "  # type: ignore[union-attr]
                         + ", ".join(segment_name(s) for s in kept))
        lines += [f"  - {segment_line(s)}" for s in record.segments if s not in kept]
        if record.evicted:
            lines.append("  - evicted: " + ", ".join(f"{n} ({why})" for n, why in record.evicted))
        if record.not_loaded:
            lines.append("  - not loaded: " + ", ".join(record.not_loaded))
        previous = record
    return [*lines, ""]


def segment_name(segment: Segment) -> str:
    return f"{segment.kind} {segment.name}" if segment.name else segment.kind


def segment_line(segment: Segment) -> str:
    name = f" `{segment.name}`" if segment.name else ""
    detail = f" · {segment.detail}" if segment.detail else ""
    return f"**{segment.kind}**{name} · ≈{segment.tokens:,} tokens{detail}"
