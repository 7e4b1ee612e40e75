"""Skill and MCP commands: /skill list|enable|disable|reload|new, /mcp, /mcp restart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from birdie_tui.text import counted
from birdie_tui.tui.cmds import extras
from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError

if TYPE_CHECKING:
    from birdie_tui.service.rows import LoadingMode


async def cmd_skill(ctx: CommandContext, args: list[str], rest: str) -> None:
    sub = args[0].lower() if args else ""
    if sub == "list":
        ctx.say("\n".join(f"- {'●' if r.enabled else '○'} **{r.name}** ({r.kind}) — "
                          f"{r.description}" for r in ctx.birdie.skill_rows())
                or "No skills loaded.")
    elif sub in ("enable", "disable") and len(args) >= 2:
        row = ctx.birdie.set_skill(" ".join(args[1:]), sub == "enable")
        ctx.toast(f"{row.name} {'enabled' if row.enabled else 'disabled'} for this session",
                  timeout=2)
    elif sub == "reload":
        await ctx.birdie.reload_skills(forced=True)
    elif sub == "new":
        await extras.skill_new(ctx, args[1:])
    elif sub == "loading" and len(args) <= 2:
        skill_loading(ctx, args[1].lower() if len(args) == 2 else None)
    else:
        raise UsageError("usage: /skill list | enable <name> | disable <name> | reload | "
                         "new <name> | loading [triggers|model|both|default]")


LOADING_WORDS: dict[LoadingMode, str] = {
    "triggers": "bodies come only from trigger phrases (Birdie 0.1.5)",
    "model": "the model loads bodies with get_skill (Birdie 0.15.1)",
    "both": "trigger phrases inject bodies and the model may load others with get_skill",
}


def skill_loading(ctx: CommandContext, mode: str | None) -> None:
    """`/skill loading [mode|default]`: show or set how knowledge bodies reach the prompt."""
    if mode is not None and mode not in (*LOADING_WORDS, "default"):
        raise UsageError("usage: /skill loading [triggers|model|both|default]")
    if mode is not None:
        ctx.birdie.set_skill_loading(None if mode == "default" else mode)
    now = ctx.birdie.skill_loading()
    ctx.say(f"Skill loading for this session: **{now}** — {LOADING_WORDS.get(now, '')}."
            + ("" if mode is not None else " `/skill loading triggers|model|both|default` "
               "changes it (default: settings.json's `skill_loading`)."))


async def cmd_mcp(ctx: CommandContext, args: list[str], rest: str) -> None:
    sub = args[0].lower() if args else "list"
    logs = ctx.birdie.status().logs_dir
    if sub == "list" and len(args) <= 1:
        ctx.say(mcp_markdown(ctx.birdie.mcp_rows(), logs))
    elif sub == "restart" and len(args) >= 2:
        name = " ".join(args[1:])
        if not any(r.skill.lower() == name.lower() for r in ctx.birdie.mcp_rows()):
            raise UsageError(f"no MCP skill {name!r} — /mcp lists them")
        ctx.toast(f"Starting the MCP server of {name}…", timeout=2)
        row = await ctx.birdie.restart_mcp(name)
        ctx.say(mcp_markdown([row], logs))
    else:
        raise UsageError("usage: /mcp | /mcp restart <skill>")


def mcp_markdown(rows: list[Any], logs_dir: str) -> str:
    """The `/mcp` report: each MCP skill's server, its state and its tools."""
    if not rows:
        return ("No MCP skills are loaded. A skill gets its tools from an MCP server with an "
                "`mcp_server` block in its SKILL.MD (see docs/skills.md, *MCP servers*).")
    lines = []
    for s in rows:
        mark = "●" if s.enabled else "○ (off)"
        state = {"running": "**running**", "failed": f"**failed**: {s.error}",
                 "exited": "exited · restarts on next use",
                 "not started": "not started · starts on first use"}.get(s.state, s.state)
        lines.append(f"- {mark} **{s.skill}** · {s.transport} `{s.target}` · {state}")
        if s.tools:
            lines.append(f"  - tools: {', '.join(f'`{t}`' for t in s.tools)}")
        if s.restarts:
            lines.append(f"  - restarted {counted(s.restarts, 'time')}")
    lines.append(f"\nServer logs (stderr of stdio servers): `{logs_dir}` · "
                 "`/mcp restart <skill>` starts a server again now")
    return "\n".join(lines)
