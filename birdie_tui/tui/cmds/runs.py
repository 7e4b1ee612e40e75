"""/runs: the runs view (agents that run on their own: schedules and file watches)."""

from __future__ import annotations

from birdie_tui.tui.cmds.context import CommandContext


async def cmd_runs(ctx: CommandContext, args: list[str], rest: str) -> None:
    ctx.ui.open_runs()
