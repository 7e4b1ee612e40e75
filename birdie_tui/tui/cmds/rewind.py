"""`/rewind [N]` and `/fork [N]`: go back to just before your message N (as `/history` numbers
them); without N, the picker of your messages opens (as Esc Esc in an empty composer does).

A rewind drops the message and what followed from the session's history (the export keeps them
as "rewound") and hands its text back to the composer to edit; a fork copies the conversation
before it into a new session, shown at once, with the message in the composer. The door tells
the screen (`session`), which reloads the chat and every panel as on a switch.
"""

from __future__ import annotations

from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError

EVERY_MESSAGE = 1_000_000  # /history's limit when the picker lists them all


async def cmd_rewind(ctx: CommandContext, args: list[str], rest: str) -> None:
    await _go(ctx, args, "rewind")


async def cmd_fork(ctx: CommandContext, args: list[str], rest: str) -> None:
    await _go(ctx, args, "fork")


async def _go(ctx: CommandContext, args: list[str], action: str) -> None:
    if len(args) > 1 or (args and (not args[0].isdigit() or int(args[0]) < 1)):
        raise UsageError(f"usage: /{action} [N] — N is your message's number as /history "
                         "shows it; without it, pick one")
    if ctx.ui.turn_running:
        raise UsageError(f"Birdie is still answering — Esc cancels the running turn, then "
                         f"/{action}.")
    if args:
        await act(ctx, action, int(args[0]))
        return
    turns = await ctx.birdie.history(EVERY_MESSAGE)
    if not turns:
        ctx.toast(f"Nothing to {action} yet: this session has no message.", timeout=3)
        return
    picked = await ctx.ui.pick_message(turns, action)
    if picked is not None:
        await act(ctx, *picked)


async def act(ctx: CommandContext, action: str, number: int) -> None:
    """Rewind to, or fork from, just before message `number`; its text to the composer."""
    if action == "rewind":
        text = await ctx.birdie.rewind(number)
        ctx.ui.edit_message(text)
        ctx.toast(f"Rewound to before message {number}: edit it, Enter sends it. What was "
                  "dropped stays in /export as rewound.", timeout=5)
        return
    turns = await ctx.birdie.history(EVERY_MESSAGE)
    text = next((turn.text for turn in turns if turn.turn == number), "")
    session_id = await ctx.birdie.fork(number)
    ctx.ui.edit_message(text)
    ctx.toast(f"Forked into session {session_id} (the conversation before message {number}); "
              "the original is unchanged.", timeout=5)
