"""`/copy`: the last reply, the reply to one of your messages, or a reply's last code block,
to the clipboard (`tui/copying.py` says how it gets there)."""

from __future__ import annotations

from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.copying import code_blocks, pick_reply
from birdie_tui.tui.usage import UsageError

USAGE = ("usage: /copy [N] [code] — the last reply, or the reply to your message N as /history "
         "numbers them; `code`: its last code block")


async def cmd_copy(ctx: CommandContext, args: list[str], rest: str) -> None:
    words = [word.lower() for word in args]
    code = "code" in words
    numbers = [word for word in words if word != "code"]
    if len(numbers) > 1 or words.count("code") > 1 \
            or (numbers and not (numbers[0].isdigit() and int(numbers[0]) >= 1)):
        raise UsageError(USAGE)
    turn = int(numbers[0]) if numbers else None
    picked = pick_reply(await ctx.birdie.transcript(), turn)
    if isinstance(picked, str):
        ctx.toast(picked, severity="warning")
        return
    what, text = picked
    if code:
        blocks = code_blocks(text)
        if not blocks:
            ctx.toast(f"No code block in {what}.", severity="warning")
            return
        what, text = f"the last code block of {what}", blocks[-1]
    ctx.ui.copy_text(text, what)
