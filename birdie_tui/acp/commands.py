"""The slash commands an editor offers for a Birdie session (`available_commands_update`):
the ones that make sense beside an editor's own UI. A prompt that starts with one of them
runs it instead of a turn, and its answer comes back as the agent's message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from birdie_tui.modes import APPROVAL_MODES, ApprovalMode, approval_mode_of
from birdie_tui.service import Birdie, BirdieError
from birdie_tui.text import counted

ModeSetter = Callable[[ApprovalMode], Awaitable[None]]


@dataclass(frozen=True)
class Context:
    door: Birdie  # showing the command's session
    session_mode: ApprovalMode
    set_mode: ModeSetter


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    hint: str | None
    run: Callable[[Context, str], Awaitable[str]]


async def _skills(ctx: Context, arg: str) -> str:
    rows = ctx.door.skill_rows()
    if not rows:
        return "No skills are loaded."
    lines = [f"- {'on ' if row.enabled else 'off'} **{row.name}** — {row.description}"
             + (f" ({row.error})" if row.error else "") for row in rows]
    return f"{counted(len(rows), 'skill')} (`/skill on|off NAME` to change one):\n\n" + \
        "\n".join(lines)


async def _skill(ctx: Context, arg: str) -> str:
    words = arg.split()
    if len(words) != 2 or words[0] not in ("on", "off", "enable", "disable"):
        raise BirdieError("usage: /skill on|off NAME")
    enabled = words[0] in ("on", "enable")
    row = ctx.door.set_skill(words[1], enabled)
    return f"Skill **{row.name}** is {'on' if row.enabled else 'off'} for this session."


async def _agent(ctx: Context, arg: str) -> str:
    """Birdie's `/agent list|enable NAME|disable NAME` (output modes are the TUI's: an
    editor shows a sub-agent's work as tool calls)."""
    words = arg.split()
    if words[:1] in ([], ["list"]):
        rows, broken = ctx.door.agent_rows(), ctx.door.broken_agent_files()
        lines = [f"- {'on ' if row.enabled else 'off'} **{row.name}** — {row.description}"
                 for row in rows]
        lines += [f"- broken: {b.path}{f':{b.line}' if b.line else ''}: {b.message}"
                  for b in broken]
        if not lines:
            return "No sub-agents are loaded."
        return f"{counted(len(rows), 'sub-agent')} (`/agent enable|disable NAME`):\n\n" + \
            "\n".join(lines)
    if len(words) != 2 or words[0] not in ("on", "off", "enable", "disable"):
        raise BirdieError("usage: /agent list | enable NAME | disable NAME")
    row = ctx.door.set_agent(words[1], words[0] in ("on", "enable"))
    return f"Sub-agent **{row.name}** is {'on' if row.enabled else 'off'} for this session."


async def _mode(ctx: Context, arg: str) -> str:
    if not arg:
        return f"Approval mode: **{ctx.session_mode}** (one of {', '.join(APPROVAL_MODES)})."
    mode = approval_mode_of(arg.strip())
    if mode is None:
        raise BirdieError(f"unknown mode {arg.strip()!r}: one of {', '.join(APPROVAL_MODES)}")
    await ctx.set_mode(mode)
    return f"Approval mode: **{mode}**."


async def _model(ctx: Context, arg: str) -> str:
    if not arg:
        status = ctx.door.status()
        return f"Model: **{status.model}**. `/model VENDOR:MODEL` to switch."
    return f"Model: **{await ctx.door.switch_model(arg.strip())}**."


async def _cost(ctx: Context, arg: str) -> str:
    report = ctx.door.cost()
    cost = "unknown" if report.cost_usd is None else f"${report.cost_usd:,.4f}" + (
        " (estimated)" if report.cost_estimated else "")
    return (f"**{report.model}** · {counted(report.turns, 'turn')} · {report.input:,} in "
            f"({report.cached:,} cached) · {report.output:,} out · cost {cost}")


async def _compact(ctx: Context, arg: str) -> str:
    row = await ctx.door.compact(arg)
    return (f"Compacted {counted(row.messages, 'message')}: the context went from "
            f"{row.tokens_before:,} to {row.tokens_after:,} tokens.")


async def _context(ctx: Context, arg: str) -> str:
    view = await ctx.door.injection()
    if not view.prompt_tokens:
        return "No model call yet in this session."
    lines = [f"The last model call's system prompt: ~{view.prompt_tokens:,} tokens "
             f"(skill catalog ~{view.catalog_tokens:,})."]
    lines += [f"- **{row.name}** — {_why(row.reason)} (~{row.tokens:,} tokens)"
              for row in view.skills]
    if view.memory:
        lines.append(f"- memory: {counted(len(view.memory), 'note')}")
    return "\n".join(lines)


def _why(reason: str) -> str:
    """An injection's reason as said in the TUI's prompt panel."""
    if reason.startswith("trigger:"):
        return f"triggered by “{reason.split(':', 1)[1]}”"
    return {"always_inject": "always injected", "loaded": "loaded by the model"}.get(reason,
                                                                                     reason)


COMMANDS: tuple[Command, ...] = (
    Command("skills", "List the skills and whether each is on for this session", None, _skills),
    Command("skill", "Turn a skill on or off for this session", "on|off NAME", _skill),
    Command("agent", "List the sub-agents, or turn one on or off for this session",
            "list | enable NAME | disable NAME", _agent),
    Command("mode", "Show or set the approval mode (ask, auto, read-only)", "ask|auto|read-only",
            _mode),
    Command("model", "Show or switch the model", "VENDOR:MODEL", _model),
    Command("cost", "Tokens and cost of this session", None, _cost),
    Command("context", "What went into the last model call's prompt, and why", None, _context),
    Command("compact", "Summarise the conversation so far to free the context window",
            "instructions", _compact),
)


def find(text: str) -> Command | None:
    if not text.startswith("/"):
        return None
    name = text[1:].split(maxsplit=1)[0] if len(text) > 1 else ""
    return next((command for command in COMMANDS if command.name == name), None)


def argument(text: str) -> str:
    parts = text.split(maxsplit=1)
    return parts[1].strip() if len(parts) > 1 else ""


def available(door: Birdie) -> list[AvailableCommand]:
    return [AvailableCommand(name=command.name, description=command.description,
                             input=AvailableCommandInput(root=UnstructuredCommandInput(
                                 hint=command.hint)) if command.hint else None)
            for command in COMMANDS]
