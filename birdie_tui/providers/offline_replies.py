"""Pure reply logic of the offline model: decides between a tool call, a tool summary and an echo."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from birdie_tui.text import content_text, counted

# The tool's full output is already in the transcript (tool_result): quote only a short excerpt.
EXCERPT_LINES = 6
EXCERPT_CHARS = 300
_CALL_RE = re.compile(r"call\s+(\S+)(?:\s+(.*))?", re.DOTALL | re.IGNORECASE)
_SKILL_CONTEXT_RE = re.compile(r"^--- (.+?) skill context ---$", re.MULTILINE)
_SKILL_LOADED_RE = re.compile(r"^--- (.+?) skill \(loaded\) ---$", re.MULTILINE)


@dataclass(frozen=True)
class OfflineReply:
    """What the offline model answers: Markdown text, or one tool call."""

    text: str = ""
    tool_call: dict[str, Any] | None = field(default=None)
    more_calls: tuple[dict[str, Any], ...] = ()  # a message of several `call` lines

    @property
    def calls(self) -> list[dict[str, Any]]:
        return [self.tool_call, *self.more_calls] if self.tool_call else []


def bound_tools(tools: Sequence[Any] | None) -> list[dict[str, Any]]:
    """Normalize bound tools (OpenAI format or bare function dicts) to function dicts."""
    out: list[dict[str, Any]] = []
    for tool in tools or ():
        if isinstance(tool, dict):
            fn = tool.get("function", tool)
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                out.append(fn)
    return out


def compose_reply(messages: Sequence[BaseMessage], tools: Sequence[Any] | None) -> OfflineReply:
    """Compute the deterministic reply for ``messages`` given the bound ``tools``."""
    functions = bound_tools(tools)
    if messages and isinstance(messages[-1], ToolMessage):
        return OfflineReply(text=_tool_summary(messages))
    index, text = _last_human(messages)
    several = _several_calls(text, index, functions)
    if several is not None:
        return several
    match = _CALL_RE.fullmatch(text.strip())
    if match and _is_call_attempt(match.group(1), match.group(2), functions):
        return _call_reply(match.group(1), match.group(2), index, text, functions)
    return OfflineReply(text=_echo_reply(text, messages, functions))


def _several_calls(text: str, index: int, functions: list[dict[str, Any]]) -> OfflineReply | None:
    """Two or more lines, each `call <bound tool> {json}`: one message calling them all (as a
    model that calls tools in parallel does); None for anything else."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    calls = []
    for number, line in enumerate(lines):
        match = _CALL_RE.fullmatch(line)
        if match is None or match.group(1) not in {fn["name"] for fn in functions}:
            return None
        reply = _call_reply(match.group(1), match.group(2), index, f"{number}:{text}", functions)
        if reply.tool_call is None:
            return None
        calls.append(reply.tool_call)
    return OfflineReply(tool_call=calls[0], more_calls=tuple(calls[1:]))


def _is_call_attempt(name: str, raw_args: str | None, functions: list[dict[str, Any]]) -> bool:
    """A bound tool, or arguments that look like JSON; "call my mom tomorrow" is just prose."""
    if any(fn["name"] == name for fn in functions) or not (raw_args or "").strip():
        return True
    return (raw_args or "").lstrip().startswith(("{", "["))


def _last_human(messages: Sequence[BaseMessage]) -> tuple[int, str]:
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return index, content_text(messages[index].content)
    return -1, ""


def _code(name: str) -> str:
    return f"`{name}`"


def _call_reply(
    name: str, raw_args: str | None, index: int, text: str, functions: list[dict[str, Any]]
) -> OfflineReply:
    names = [fn["name"] for fn in functions]
    if name not in names:
        available = ", ".join(_code(n) for n in names) if names else "none"
        return OfflineReply(
            text=f"The tool {_code(name)} is not available in this session.\n\n"
            f"Bound tools: {available}.\n"
        )
    args: Any = {}
    if raw_args is not None and raw_args.strip():
        try:
            args = json.loads(raw_args)
        except json.JSONDecodeError as exc:
            return OfflineReply(text=_syntax_help(name, f"{exc.msg} (line {exc.lineno}, column {exc.colno})"))
        if not isinstance(args, dict):
            return OfflineReply(text=_syntax_help(name, f"expected a JSON object, got {type(args).__name__}"))
    digest = hashlib.sha256(f"{index}:{text}".encode()).hexdigest()[:12]
    return OfflineReply(tool_call={"name": name, "args": args, "id": f"call_{digest}"})


def _syntax_help(name: str, problem: str) -> str:
    return (
        f"I could not read the arguments for {_code(name)}: {problem}.\n\n"
        f"The syntax is `call {name} {{\"arg\": \"value\"}}` — the arguments must be one JSON "
        f"object — or just `call {name}` for no arguments.\n"
    )


def _fence(body: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def excerpt(content: str) -> tuple[str, str]:
    """The first lines of `content` (at most EXCERPT_LINES lines and EXCERPT_CHARS characters)
    and a note of what was left out ("" when nothing was)."""
    lines = content.splitlines()
    kept: list[str] = []
    used = 0
    for line in lines[:EXCERPT_LINES]:
        if used + len(line) > EXCERPT_CHARS:
            break
        kept.append(line)
        used += len(line) + 1
    cut = 0
    if lines and not kept:  # one huge first line: show its start rather than nothing
        kept, cut = [lines[0][:EXCERPT_CHARS]], len(lines[0]) - EXCERPT_CHARS
    more = len(lines) - len(kept)
    parts = ([f"{cut:,} more characters"] if cut else []) + (
        [f"{more:,} more line{'s' if more != 1 else ''}"] if more else [])
    return "\n".join(kept), f"… ({', '.join(parts)})" if parts else ""


def _quote_result(content: str) -> str:
    shown, note = excerpt(content)
    fence = _fence(shown)
    lines = [f"  {fence}", *(f"  {line}" for line in shown.splitlines() or [""]), f"  {fence}"]
    if note:
        lines.append(f"  _{note}_")
    return "\n".join(lines)


def _tool_summary(messages: Sequence[BaseMessage]) -> str:
    start, names = 0, {}
    for index in range(len(messages) - 1, -1, -1):
        msg = messages[index]
        if isinstance(msg, AIMessage) and msg.tool_calls:
            start = index + 1
            names = {call["id"]: call["name"] for call in msg.tool_calls}
            break
    results = [m for m in messages[start:] if isinstance(m, ToolMessage)]
    parts = ["**Tool results**\n"]
    outcomes = {"returned": 0, "failed": 0, "denied": 0, "not run": 0}
    for msg in results:
        name = msg.name or names.get(msg.tool_call_id) or "tool"
        text = content_text(msg.content)
        outcome = _outcome(msg.status, text)
        outcomes[outcome] += 1
        parts.append(f"- {_code(name)} → {outcome}:\n\n{_quote_result(text)}\n")
    parts.append(_tally(outcomes) + ".\n")
    return "\n".join(parts)


def _outcome(status: str, text: str) -> str:
    """returned | failed | denied (the user said no) | not run (a rule, a limit, a mode)."""
    if status != "error":
        return "returned"
    if text.startswith("The user denied this tool call"):
        return "denied"
    return "not run" if text.startswith("Not run") else "failed"


def _tally(outcomes: dict[str, int]) -> str:
    """`2 tool calls finished, 1 failed`, `1 tool call denied`: a call that never ran is
    not counted as finished or failed."""
    ran = outcomes["returned"] + outcomes["failed"]
    said = [f"{counted(ran, 'tool call')} finished"] if ran else []
    if outcomes["failed"]:
        said.append(f"{outcomes['failed']} failed")
    for held in ("denied", "not run"):
        if outcomes[held]:
            said.append(f"{outcomes[held]} {held}" if said else
                        f"{counted(outcomes[held], 'tool call')} {held}")
    return ", ".join(said) or "0 tool calls finished"


def injected_skills(messages: Sequence[BaseMessage]) -> list[str]:
    """Skill names marked in the system prompt (knowledge bodies first, then loaded skills)."""
    names: list[str] = []
    for msg in messages:
        if isinstance(msg, SystemMessage):
            text = content_text(msg.content)
            for found in _SKILL_CONTEXT_RE.findall(text) + _SKILL_LOADED_RE.findall(text):
                if found not in names:
                    names.append(found)
    return names


def _hint(functions: list[dict[str, Any]]) -> str:
    if not functions:
        return "No tools are bound right now; enable a skill with tools, then try `call <tool> {\"arg\": ...}`."
    first = functions[0]
    props = [p for p in (first.get("parameters") or {}).get("properties") or {}
             if p != "timeout_s"]  # every bash/http tool takes it: not an example argument
    if not props:
        return f"Try `call {first['name']}` to run a tool."
    return f"Try `call {first['name']} {{\"{props[0]}\": ...}}` to run a tool."


def _echo_reply(text: str, messages: Sequence[BaseMessage], functions: list[dict[str, Any]]) -> str:
    stripped = text.strip()
    # A 5 MB paste is quoted by its start, not streamed back whole; a message of a screen or
    # less is quoted in full.
    long = len(stripped) > 4000 or stripped.count("\n") >= 40
    shown, cut = excerpt(stripped) if long else (stripped, "")
    quote = "\n".join(f"> {line}".rstrip() for line in shown.splitlines()) or "> _(empty message)_"
    if cut:
        quote += f"\n>\n> {cut}"
    skills = injected_skills(messages)
    skill_list = ", ".join(_code(s) for s in skills) if skills else "none"
    tool_list = ", ".join(_code(fn["name"]) for fn in functions) if functions else "none"
    return (
        "**Offline model** — no network and no API key; I restate what I received.\n\n"
        f"You said:\n\n{quote}\n\n"
        f"- **Skills injected this turn:** {skill_list}\n"
        f"- **Tools I could call:** {tool_list}\n"
        f"- **Your message:** {len(stripped):,} characters\n\n"
        f"{_hint(functions)}\n"
    )
