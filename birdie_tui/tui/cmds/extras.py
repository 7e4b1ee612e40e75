"""Commands Birdie users know: /cost, /history [N], /tool cap, /cd and /skill new
(the last two are subcommands of /tool and /skill; their handlers live here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from birdie_tui.text import counted
from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError
from birdie_tui.tui.widgets.format import fmt_cost

COST_ROWS = 20  # turns /cost lists unless asked for all
HISTORY_DEFAULT = 10
HISTORY_CHARS = 200  # of each message, on one line


# ---------------------------------------------------------------------- /cost
async def cmd_cost(ctx: CommandContext, args: list[str], rest: str) -> None:
    if args not in ([], ["all"]):
        raise UsageError("usage: /cost [all]")
    ctx.say(cost_markdown(ctx.birdie.cost(), every_turn=bool(args)))


def cost_markdown(report: Any, *, every_turn: bool = False) -> str:
    """The session's totals, then a table of its turns (the last `COST_ROWS` unless
    `every_turn`), then what is known only as totals."""
    cached = f" ({report.cached:,} cached)" if report.cached else ""
    cost = fmt_cost(report.cost_usd)
    if report.cost_usd is None:
        cost += " (no price known for a model used)"
    elif report.cost_estimated:
        cost += " (estimated at today's price)"
    lines = [f"**Session** {counted(report.turns, 'turn')} · ↑{report.input:,} in{cached} · "
             f"↓{report.output:,} out · **{cost}** · model now: {report.model}"]
    rows = list(report.per_turn)
    if not rows:
        lines.append("" if report.turns else "\nNo turns yet in this session.")
    else:
        shown = rows if every_turn else rows[-COST_ROWS:]
        # One model throughout: said once above the table, so the figures keep their width in
        # a chat narrowed by the side panels.
        models = {row.model for row in shown}
        one = len(models) == 1
        if one:
            lines.append(f"\nEvery turn below: {next(iter(models)) or 'model not recorded'}")
        lines += ["", "| Turn | In | Cached | Out | Cost |" if one else
                  "| Turn | Model | In | Cached | Out | Cost |",
                  "|---:|---:|---:|---:|---:|" if one else "|---:|---|---:|---:|---:|---:|"]
        lines += [_cost_row(row, model=not one) for row in shown]
        if len(shown) < len(rows):
            lines.append(f"\n{counted(len(rows) - len(shown), 'earlier turn')} not shown: "
                         "`/cost all` lists every one.")
    if report.unrecorded_turns:
        lines.append(f"\n{counted(report.unrecorded_turns, 'turn')} ran before per-turn costs were "
                     "recorded: they are in the session totals only.")
    return "\n".join(lines).rstrip()


def _cost_row(row: Any, *, model: bool = True) -> str:
    mark = " (running)" if row.running else " (retried)" if row.retried else ""
    named = f" {row.model or '—'} |" if model else ""
    return (f"| {row.turn}{mark} |{named} {row.input:,} | {row.cached:,} | "
            f"{row.output:,} | {fmt_cost(row.cost)} |")


# ---------------------------------------------------------------------- /history
async def cmd_history(ctx: CommandContext, args: list[str], rest: str) -> None:
    if len(args) > 1 or (args and not args[0].isdigit()) or (args and int(args[0]) < 1):
        raise UsageError("usage: /history [N] — your last N messages (default 10)")
    limit = int(args[0]) if args else HISTORY_DEFAULT
    turns = await ctx.birdie.history(limit)
    if not turns:
        ctx.say("No messages yet in this session.", markdown=False)
        return
    total = turns[-1].turn
    head = (f"Your last {len(turns)} of {total} messages:" if total > len(turns)
            else f"Your {counted(len(turns), 'message')} in this session:")
    ctx.say("\n".join([head, *(f"  turn {t.turn} · {_one_line(t.text)}" for t in turns)]),
            markdown=False)


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= HISTORY_CHARS else flat[:HISTORY_CHARS - 1] + "…"


# ---------------------------------------------------------------------- /tool cap
async def tool_cap(ctx: CommandContext, args: list[str]) -> None:
    """`/tool cap` shows the per-turn tool-call limit; `/tool cap N|off` sets it."""
    if not args:
        cap = ctx.birdie.tool_call_limit()
        ctx.say(f"Tool calls per turn: **{cap if cap is not None else 'no limit'}** — "
                "`/tool cap <N>` or `/tool cap off` changes it until you quit.")
        return
    word = args[0].lower()
    if len(args) != 1 or not (word == "off" or (word.isdigit() and int(word) >= 1)):
        raise UsageError("usage: /tool cap [<N> | off] — N is 1 or more")
    cap = ctx.birdie.set_tool_call_limit(None if word == "off" else int(word))
    ctx.toast(f"Tool calls per turn: {'no limit' if cap is None else f'at most {cap}'}",
              timeout=3)


# ---------------------------------------------------------------------- /cd
async def cmd_cd(ctx: CommandContext, args: list[str], rest: str) -> None:
    if not rest:
        ctx.say(f"Working directory: `{ctx.birdie.working_dir()}`")
        return
    if ctx.ui.turn_running:
        raise UsageError("Birdie is still answering — /cd once the turn is over (Esc cancels).")
    path = args[0] if len(args) == 1 else rest  # quoted, or spaces as typed
    ctx.say(f"Working directory: `{ctx.birdie.change_dir(path)}`")


# ---------------------------------------------------------------------- /skill new
async def skill_new(ctx: CommandContext, args: list[str]) -> None:
    """`/skill new <name>`: the door writes the file and loads it; the chat says where."""
    if len(args) != 1:
        raise UsageError("usage: /skill new <name> — letters, digits, '.', '_' or '-'")
    made = await ctx.birdie.new_skill(args[0])
    note = ""
    if made.folder_added:
        folder = Path(made.path).parent.parent
        note = f"\n\n`{folder}` is now one of this session's skill folders."
        ctx.ui.rewatch_skills()
    ctx.say(f"Created the skill **{made.name}**: `{made.path}`\n\nA knowledge skill: its body "
            "goes into the prompt when one of its `triggers` is in your message. Edit it; "
            "saves are picked up as you go. The commented `## Tools` example shows how to "
            f"give it tools.{note}")
