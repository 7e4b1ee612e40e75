"""/approvals: the approval mode, what this session allows without asking, and a step still
waiting for an answer. `/approvals mode ask|auto|read-only` · `/approvals forget` ·
`/approvals ask` (the waiting approval, asked again)."""

from __future__ import annotations

import re

from birdie_tui.service import APPROVAL_MODES, ApprovalMode
from birdie_tui.text import counted
from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError

MODES = APPROVAL_MODES
USAGE = "usage: /approvals [mode ask|auto|read-only | forget | ask]"
MODE_WORDS: dict[ApprovalMode, str] = {
    "ask": "tools that need approval ask first",
    "auto": "tools that need approval run without asking (deny rules still apply)",
    "read-only": "tools that need approval do not run",
}


async def cmd_approvals(ctx: CommandContext, args: list[str], rest: str) -> None:
    sub = args[0].lower() if args else ""
    if not args:
        await show(ctx)
    elif sub == "mode" and len(args) == 2 and args[1].lower() in MODES:
        mode = ctx.birdie.set_approval_mode(args[1].lower())
        ctx.toast(f"Approvals: {mode} — {MODE_WORDS[mode]}", timeout=3)
    elif sub == "forget" and len(args) == 1:
        skills, rules = ctx.birdie.saved_approvals()
        ctx.birdie.forget_approvals()
        ctx.say(f"Forgot {counted(len(skills), 'approved skill')} and "
                f"{counted(len(rules), 'rule')}: this "
                "session asks again.", markdown=False)
    elif sub == "ask" and len(args) == 1:
        await ask_again(ctx)
    else:
        raise UsageError(USAGE)


async def show(ctx: CommandContext) -> None:
    birdie = ctx.birdie
    mode = birdie.approval_mode()
    skills, rules = birdie.saved_approvals()
    pending = await birdie.pending_approvals()
    lines = [f"**Approval mode: {mode}** — {MODE_WORDS.get(mode, '')} "
             "(shift+tab cycles ask → auto → read-only)", ""]
    lines.append("Skills approved for this session: " + (
        ", ".join(code(name) for name in skills) if skills else "none"))
    lines.append("")
    lines.append("Rules saved in this session (always allowed): " + (
        "" if rules else "none"))
    lines += [f"- {code(rule)}" for rule in rules]
    if pending:
        names = ", ".join(code(request.name) for request in pending)
        lines += ["", f"Waiting for your answer: {names} — `/approvals ask` asks again."]
    lines += ["", "`/approvals mode ask|auto|read-only` · `/approvals forget` drops the skills "
              "and rules above · settings.json `permissions` holds rules for every session."]
    ctx.say("\n".join(lines))


async def ask_again(ctx: CommandContext) -> None:
    if ctx.ui.turn_running:
        raise UsageError("Birdie is still answering — /approvals ask once the turn is over.")
    if not await ctx.birdie.pending_approvals():
        ctx.say("Nothing in this session is waiting for approval.", markdown=False)
        return
    await ctx.ui.ask_pending_approvals()


def code(text: str) -> str:
    """`text` as inline code, whatever backticks it holds (a rule is a command line)."""
    text = text.replace("\n", "⏎")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
