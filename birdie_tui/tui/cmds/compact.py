"""/compact: fold the older turns into a summary the model reads instead of them (the messages
stay in the chat), and /compact auto: the share of the context window that does it by itself
before a turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError
from birdie_tui.tui.widgets.format import fmt_tokens

if TYPE_CHECKING:
    from birdie_tui.events import Compacted

AUTO_USAGE = "usage: /compact auto [off | <percent from 1 to 100>]"
LITTLE_FREED = 0.05  # of the context: less than this freed is not reported as a success


def compaction_sentence(messages: int, tokens_before: int, tokens_after: int) -> str:
    """Compacted 42 messages into a summary: context ≈18.2k → ≈3.1k tokens. …; one that freed
    under `LITTLE_FREED` of the context says so instead of reading as a success."""
    noun = "message" if messages == 1 else "messages"
    if tokens_before - tokens_after < tokens_before * LITTLE_FREED:
        return (f"Compacting {messages} {noun} freed almost nothing: context "
                f"≈{fmt_tokens(tokens_before, compact=True)} → "
                f"≈{fmt_tokens(tokens_after, compact=True)} tokens. Most of it is the last "
                "turns, which are kept as they are: send less, or switch to a model with a "
                "bigger window (/model).")
    return (f"Compacted {messages} {noun} into a summary: context "
            f"≈{fmt_tokens(tokens_before, compact=True)} → "
            f"≈{fmt_tokens(tokens_after, compact=True)} tokens. The messages stay in the chat; "
            "the model now sees the summary.")


def auto_compaction_notice(event: Compacted, percent: int) -> tuple[str, bool]:
    """(text, is_error) for a `compacted` event of an automatic compaction."""
    error = event.error
    if error:
        return (f"Automatic compaction failed: {error}. The turn went on without it "
                "(`/compact` tries again).", True)
    reached = (f"Context reached {percent} % of the window: " if percent
               else "The context outgrew its budget: ")
    sentence = compaction_sentence(event.messages, event.tokens_before, event.tokens_after)
    return reached + sentence[0].lower() + sentence[1:], False


async def cmd_compact(ctx: CommandContext, args: list[str], rest: str) -> None:
    if args and args[0].lower() == "auto":
        compact_auto(ctx, args[1:])
        return
    if ctx.ui.turn_running:
        raise UsageError("Birdie is still answering — /compact once the turn is over "
                         "(Esc cancels).")
    ctx.toast("Compacting the conversation…", timeout=2)
    done = await ctx.birdie.compact(rest)  # a BirdieError is shown as a chat error
    ctx.say(compaction_sentence(done.messages, done.tokens_before, done.tokens_after),
            markdown=False)


def compact_auto(ctx: CommandContext, args: list[str]) -> None:
    """`/compact auto` shows the threshold; `/compact auto off|<percent>` sets it for this
    session."""
    if not args:
        percent = ctx.birdie.auto_compact_percent()
        state = f"at **{percent} %** of the context window" if percent else "**off**"
        ctx.say(f"Automatic compaction: {state}. `/compact auto <percent>` or "
                "`/compact auto off` changes it for this session.")
        return
    word = args[0].lower().removesuffix("%")
    if len(args) != 1 or not (word == "off" or (word.isdigit() and 1 <= int(word) <= 100)):
        raise UsageError(AUTO_USAGE)
    percent = ctx.birdie.set_auto_compact(0 if word == "off" else int(word))
    ctx.toast(f"Automatic compaction at {percent} % of the context window (this session)"
              if percent else "Automatic compaction off for this session", timeout=3)
