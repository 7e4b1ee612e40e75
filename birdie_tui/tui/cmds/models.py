"""`/model` (list, or switch for the rest of the session) and `/retry` (run the last user turn
again); the palette lists the same model choices."""

from __future__ import annotations

from typing import Any

from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError

MODEL_USAGE = "usage: /model | /model VENDOR[/MODEL] | /model MODEL"


def facts_line(facts: Any) -> str:
    from birdie_tui.tui.widgets.format import fmt_tokens

    window, price = facts.context_window, facts.price
    ctx = f"context {fmt_tokens(window, compact=True)}" if window else "context unknown"
    cost = (f"${price[0]:g} in / ${price[1]:g} out per M tokens" if price is not None
            else "price unknown")
    return f"{ctx} · {cost}"


def model_listing(birdie: Any) -> str:
    facts = birdie.model_facts()
    lines = [f"Model: **{facts.label}** ({facts_line(facts)})", ""]
    for choice in birdie.model_choices():
        models = " · ".join(f"`{m}`" for m in choice.models) or "_(name a deployment)_"
        mark = " (current)" if choice.current else ""
        lines.append(f"- **{choice.vendor}**{mark}: {models}")
    lines += ["", "Switch with `/model VENDOR/MODEL`, `/model VENDOR` or `/model MODEL` — "
              "for the rest of this session; vendors need their API key in the environment."]
    return "\n".join(lines)


async def cmd_model(ctx: CommandContext, args: list[str], rest: str) -> None:
    if not rest:
        ctx.say(model_listing(ctx.birdie))
        return
    if len(args) != 1:
        raise UsageError(MODEL_USAGE)
    label = await ctx.birdie.switch_model(args[0])
    ctx.say(f"Now using **{label}** ({facts_line(ctx.birdie.model_facts())}) for the rest of "
            "this session.")


async def cmd_retry(ctx: CommandContext, args: list[str], rest: str) -> None:
    if ctx.ui.turn_running:
        raise UsageError("Birdie is still answering — Esc cancels the running turn.")
    text = await ctx.birdie.take_last_turn()
    ctx.say("Retrying your last message.")
    ctx.ui.start_turn(text)
