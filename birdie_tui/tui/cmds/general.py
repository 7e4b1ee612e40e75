"""General commands: /quit, /clear, /info, /theme, memory, tool output and /tool cap."""

from __future__ import annotations

from birdie_tui.text import counted
from birdie_tui.tui.cmds import extras
from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError


async def cmd_quit(ctx: CommandContext, args: list[str], rest: str) -> None:
    ctx.ui.quit()


async def cmd_clear(ctx: CommandContext, args: list[str], rest: str) -> None:
    await ctx.ui.clear_chat()


async def cmd_info(ctx: CommandContext, args: list[str], rest: str) -> None:
    s = ctx.birdie.status()
    folders = "\n".join(f"  - `{d}`" for d in s.skill_dirs)
    ctx.say(f"- **user** `{s.user}`\n- **session** `{s.session_id}` · {s.title or 'untitled'}"
            f" · {counted(s.turns, 'turn')}\n- **model** {s.model}\n- **data** `{s.data_dir}`\n"
            f"- **skill folders**\n{folders}")


async def cmd_theme(ctx: CommandContext, args: list[str], rest: str) -> None:
    if not args:
        names = ", ".join(f"`{n}`" for n in sorted(ctx.ui.theme_names()))
        ctx.say(f"Theme **{ctx.ui.current_theme()}**. Available: {names}")
    elif not ctx.ui.set_theme(args[0]):
        raise UsageError(f"unknown theme {args[0]!r} — /theme lists them")


async def cmd_remember(ctx: CommandContext, args: list[str], rest: str) -> None:
    if not rest:
        raise UsageError("usage: /remember <text>")
    note = ctx.birdie.remember(rest)
    ctx.toast(f"Remembered ({note.id}).", timeout=2)


async def cmd_memory(ctx: CommandContext, args: list[str], rest: str) -> None:
    sub = args[0].lower() if args else "list"
    if sub == "list":
        notes = ctx.birdie.memory()
        if not notes:
            ctx.say("Long-term memory is empty — `/remember <text>` adds a note.")
            return
        ctx.say("\n".join(f"{n}. `{e.id}` {e.content}" for n, e in enumerate(notes, 1)))
    elif sub == "delete" and len(args) == 2:
        note = ctx.birdie.forget(args[1])
        ctx.toast(f"Forgot: {note.content}", timeout=3)
    else:
        raise UsageError("usage: /memory [list] | /memory delete <id or number>")


async def cmd_tool(ctx: CommandContext, args: list[str], rest: str) -> None:
    if args[:1] == ["list"]:
        tools = await ctx.birdie.tools()
        if not tools:
            ctx.say("No tools are callable: every tool skill is off.")
            return
        ctx.say("\n".join(f"- `{t.name}` — {t.description}" for t in tools))
    elif args[:1] == ["cap"]:
        await extras.tool_cap(ctx, args[1:])
    elif len(args) == 2 and args[0] == "output" and args[1] in ("full", "short", "off"):
        ctx.ui.set_tool_output(args[1])
        ctx.toast(f"Tool output: {args[1]}", timeout=2)
    else:
        raise UsageError("usage: /tool list | /tool output full|short|off | /tool cap [N|off]")
