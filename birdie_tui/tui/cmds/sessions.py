"""Session commands: /session new|switch|delete|list|info, /new, /sessions, /rename."""

from __future__ import annotations

from birdie_tui.text import counted
from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError


async def cmd_session(ctx: CommandContext, args: list[str], rest: str) -> None:
    sub = args[0].lower() if args else ""
    if sub == "new":
        await ctx.ui.new_session()
    elif sub == "switch" and len(args) == 2:
        await ctx.ui.open_session(args[1])
    elif sub == "delete" and len(args) == 2:
        # Typed commands get the same deliberate, keep-by-default question as the browser.
        if await ctx.ui.confirm(f"Delete session {args[1]}? This removes its history."):
            await ctx.ui.delete_session(args[1])
    elif sub == "list":
        rows = ctx.birdie.session_rows()
        ctx.say("\n".join(f"- {'●' if r.current else '○'} `{r.id}` {r.title} · "
                          f"{counted(r.turns, 'turn')}" for r in rows) or "No sessions.")
    elif sub == "info":
        s, ledger = ctx.birdie.status(), ctx.birdie.ledger()
        ctx.say(f"- **id** `{s.session_id}`\n- **title** {s.title or 'untitled'}\n"
                f"- **created** {s.created_at[:16].replace('T', ' ')}\n"
                f"- **turns** {s.turns}\n- **tokens** ↑{ledger.session_in} "
                f"↓{ledger.session_out}\n- **memory entries** {len(ctx.birdie.memory())}")
    else:
        raise UsageError("usage: /session new | switch <id> | delete <id> | list | info")


async def cmd_new(ctx: CommandContext, args: list[str], rest: str) -> None:
    await ctx.ui.new_session()


async def cmd_sessions(ctx: CommandContext, args: list[str], rest: str) -> None:
    ctx.ui.open_browser()


async def cmd_rename(ctx: CommandContext, args: list[str], rest: str) -> None:
    if not rest:
        raise UsageError("usage: /rename <title>")
    ctx.birdie.rename_session(ctx.birdie.status().session_id, rest)
